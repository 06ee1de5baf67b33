import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { startEmbeddedPostgres } from "../../src/infra/embedded-postgres.js";
import { authenticates } from "../../src/infra/embedded-postgres-password.js";
import { findFreePort } from "../../src/infra/ports.js";

/**
 * Every embedded Postgres used to share one fixed password, so a CLI pointed at another instance's port
 * wrote into that instance's database. Each data dir now has its own password, kept in the data dir.
 */

const dirs: string[] = [];
async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "sigil-pg-password-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs SQL on the database at the URL through a one-connection pool, closed afterwards. */
async function onDatabase<T>(url: string, work: (db: ReturnType<typeof connectDatabase>) => Promise<T>): Promise<T> {
  const db = connectDatabase(url, { max: 1 });
  try {
    return await work(db);
  } finally {
    await closeDatabase(db);
  }
}

const withPassword = (url: string, password: string) => {
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
};
const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);
const passwordFile = (dataDir: string) => path.join(dataDir, "postgres.password");
const LEGACY_PASSWORD = "sigil-embedded";

describe("the embedded Postgres password", () => {
  it("is generated per data dir, kept there (0600), and one instance's URL is refused by another", async () => {
    const [a, b] = [await tempDataDir(), await tempDataDir()];
    const pgA = await startEmbeddedPostgres({ dataDir: a, port: await findFreePort() });
    const pgB = await startEmbeddedPostgres({ dataDir: b, port: await findFreePort() });
    try {
      expect(passwordOf(pgA.url)).not.toBe(passwordOf(pgB.url));
      for (const [dir, pg] of [[a, pgA], [b, pgB]] as const) {
        expect(readFileSync(passwordFile(dir), "utf8").trim()).toBe(passwordOf(pg.url));
        expect(statSync(passwordFile(dir)).mode & 0o777).toBe(0o600);
        expect(passwordOf(pg.url).length).toBeGreaterThanOrEqual(24);
      }
      // A client holding A's password, pointed at B's port (the wrong instance), is refused.
      const aOnB = withPassword(pgB.url, passwordOf(pgA.url));
      expect(await authenticates(aOnB)).toBe(false);
      expect(await authenticates(withPassword(pgB.url, LEGACY_PASSWORD))).toBe(false);
    } finally {
      await pgA.stop();
      await pgB.stop();
    }
  });

  it("a data dir initialised with the old fixed password keeps its data and moves to a password of its own", async () => {
    const dataDir = await tempDataDir();
    const port = await findFreePort();
    // Make the data dir of an older Sigil: the cluster's password is the fixed one, no password file.
    const first = await startEmbeddedPostgres({ dataDir, port });
    try {
      await onDatabase(first.url, async (db) => {
        await db.none("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives')");
        await db.none("ALTER ROLE postgres PASSWORD $1", [LEGACY_PASSWORD]);
      });
    } finally {
      await first.stop();
    }
    await unlink(passwordFile(dataDir));

    const second = await startEmbeddedPostgres({ dataDir, port });
    try {
      const stored = readFileSync(passwordFile(dataDir), "utf8").trim();
      expect(stored).not.toBe(LEGACY_PASSWORD);
      expect(passwordOf(second.url)).toBe(stored);
      expect(statSync(passwordFile(dataDir)).mode & 0o777).toBe(0o600);
      expect(await onDatabase(second.url, (db) => db.any("SELECT v FROM kept"))).toEqual([{ v: "survives" }]);
      expect(await authenticates(withPassword(second.url, LEGACY_PASSWORD))).toBe(false);
    } finally {
      await second.stop();
    }

    // And it starts again with the stored password.
    const third = await startEmbeddedPostgres({ dataDir, port });
    try {
      expect(passwordOf(third.url)).toBe(readFileSync(passwordFile(dataDir), "utf8").trim());
      expect(await authenticates(third.url)).toBe(true);
    } finally {
      await third.stop();
    }
  });

  it("finishes a move to a new password that was cut off after the role changed", async () => {
    const dataDir = await tempDataDir();
    const port = await findFreePort();
    const first = await startEmbeddedPostgres({ dataDir, port });
    try {
      await onDatabase(first.url, (db) => db.none("ALTER ROLE postgres PASSWORD $1", ["pending-password-of-a-cut-off-move"]));
    } finally {
      await first.stop();
    }
    // The role took the new password, but the process died before the file was renamed into place.
    await unlink(passwordFile(dataDir));
    await writeFile(`${passwordFile(dataDir)}.pending`, "pending-password-of-a-cut-off-move\n", { mode: 0o600 });

    const second = await startEmbeddedPostgres({ dataDir, port });
    try {
      expect(await authenticates(second.url)).toBe(true);
      expect(passwordOf(second.url)).toBe("pending-password-of-a-cut-off-move");
      expect(readFileSync(passwordFile(dataDir), "utf8").trim()).toBe("pending-password-of-a-cut-off-move");
      expect(existsSync(`${passwordFile(dataDir)}.pending`)).toBe(false);
    } finally {
      await second.stop();
    }
  });
});
