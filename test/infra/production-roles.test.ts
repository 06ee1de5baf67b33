import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { listMigrations, migrate, pendingMigrations } from "../../src/db/migrate.js";
import { testEnv } from "../setup/env.js";
import { createTestDatabase } from "../setup/test-database.js";

const root = path.resolve(import.meta.dirname, "../..");
const key = (id: string) => `${id}:${Buffer.alloc(32, 7).toString("base64")}`;
const dataDirs: string[] = [];
afterAll(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `src/main.ts <role>` with exactly `env` (plus PATH and HOME) on a data dir of its own; its exit and output. */
function runRole(role: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sigil-role-"));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", role], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, SIGIL_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, dataDir });
    }),
  );
}

describe("the production roles", () => {
  it.each(["api", "worker"])("%s refuses to start on the dev role's made-up defaults, naming every missing setting, and writes no key file", async (role) => {
    const r = await runRole(role, { REDIS_URL: "redis://127.0.0.1:1" });
    expect(r.code).toBe(2);
    for (const name of ["DATABASE_URL", "TEMPORAL_ADDRESS", "SIGIL_SEALING_KEYS", "SIGIL_BACKUP_SEALING_KEYS"]) expect(r.stderr).toContain(name);
    expect(r.stderr).not.toContain("REDIS_URL");
    expect(r.stderr).toContain(`the ${role} role needs settings`);
    expect(readdirSync(r.dataDir)).toEqual([]);
  }, 90_000);

  it("with SIGIL_MIGRATE_ON_START=false refuses a database that lacks this release's migrations, and changes nothing in it", async () => {
    const database = await createTestDatabase(testEnv().databaseUrl);
    const db = connectDatabase(database.url, { max: 1 });
    try {
      const all = listMigrations().map((m) => m.version);
      expect(await pendingMigrations(db)).toEqual(all);
      const r = await runRole("api", {
        DATABASE_URL: database.url,
        REDIS_URL: testEnv().redisUrl,
        TEMPORAL_ADDRESS: testEnv().temporalAddress,
        SIGIL_SEALING_KEYS: key("k1"),
        SIGIL_BACKUP_SEALING_KEYS: key("b1"),
        SIGIL_MIGRATE_ON_START: "false",
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`lacks ${all.length} migration(s)`);
      expect(r.stderr).toContain("sigil migrate");
      expect(await pendingMigrations(db)).toEqual(all);

      // Once migrated, nothing is pending; a database ahead of the release (a rollout's old version) is fine too.
      await migrate(db);
      expect(await pendingMigrations(db)).toEqual([]);
      expect(await pendingMigrations(db, listMigrations().slice(0, -1))).toEqual([]);
    } finally {
      await closeDatabase(db);
      await database.drop();
    }
  }, 120_000);
});
