import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "../../src/infra/embedded-postgres.js";
import { findFreePort } from "../../src/infra/ports.js";
import { waitFor } from "../support/poll.js";

async function query<T>(url: string, sql: string): Promise<T[]> {
  const db = connectDatabase(url, { max: 1 });
  try {
    return await db.any<T>(sql);
  } finally {
    await closeDatabase(db);
  }
}

/** When root, Postgres runs as the `postgres` OS user: the impostor must too. */
function postgresUserIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

function deadPid(): number {
  // Far above any pid_max in use, so certainly not a running process.
  return 4_000_000 + Math.floor(Math.random() * 100_000);
}

describe("startEmbeddedPostgres", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "sigil-embedded-pg-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("starts a real Postgres, creates the database, and keeps data across restarts", async () => {
    const port = await findFreePort();
    const first = await startEmbeddedPostgres({ dataDir, port, database: "sigil_probe" });
    try {
      expect(first.url).toMatch(new RegExp(`^postgres://postgres:[^@]+@127\\.0\\.0\\.1:${port}/sigil_probe$`));
      expect(await query<{ one: number }>(first.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
      await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives')");
    } finally {
      await first.stop();
    }
    expect(existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false); // clean shutdown

    const second = await startEmbeddedPostgres({ dataDir, port, database: "sigil_probe" });
    try {
      expect(await query<{ v: string }>(second.url, "SELECT v FROM kept")).toEqual([{ v: "survives" }]);
    } finally {
      await second.stop();
    }
  });

  it("starts over a stale postmaster.pid whose process is gone", async () => {
    const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
    await writeFile(pidFile, `${deadPid()}\n${path.join(dataDir, "postgres")}\n1700000000\n5432\n\n127.0.0.1\n  1  2\nready\n`);
    const pg = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), database: "sigil_probe" });
    try {
      expect(await query<{ v: string }>(pg.url, "SELECT v FROM kept")).toEqual([{ v: "survives" }]);
      // The file now holds the new postmaster's pid, which is alive.
      expect(Number(readFileSync(pidFile, "utf8").split("\n")[0])).toBeGreaterThan(0);
    } finally {
      await pg.stop();
    }
  });

  it("starts over a postmaster.pid whose pid now belongs to another live process", async () => {
    // After a reboot or in a container, the recorded pid is often reused; Postgres then refuses to start
    // when that process runs as its own user (another user's pid answers EPERM, which it takes as stale).
    const impostor = spawn("sleep", ["60"], postgresUserIds());
    try {
      const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
      await writeFile(pidFile, `${impostor.pid}\n${path.join(dataDir, "postgres")}\n1700000000\n5432\n\n127.0.0.1\n  1  2\nready\n`);
      const pg = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), database: "sigil_probe" });
      try {
        expect(await query<{ v: string }>(pg.url, "SELECT v FROM kept")).toEqual([{ v: "survives" }]);
      } finally {
        await pg.stop();
      }
      expect(impostor.exitCode).toBeNull(); // left alone
    } finally {
      impostor.kill();
    }
  });

  it("starts over a postmaster.pid whose process is a zombie nobody reaps", async () => {
    // kill -9 of a whole process group leaves the postmaster a zombie until PID 1 reaps it, and a
    // container's PID 1 may never do so: signal 0 still answers for it. Here a parent that never reaps
    // (`sleep`, exec'd by the shell that started the child) holds one, running as Postgres's user. The child
    // outlives the exec by a second: one that ended first would be reaped by the shell itself.
    const holder = spawn("bash", ["-c", "sleep 1 & echo $!; exec sleep 60"], { ...postgresUserIds(), stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => holder.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()))));
      const stateOf = () => readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]?.[0];
      await waitFor(`process ${zombie} a zombie`, stateOf, { until: (state) => state === "Z", timeoutMs: 10_000, intervalMs: 50 });
      const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
      await writeFile(pidFile, `${zombie}\n${path.join(dataDir, "postgres")}\n1700000000\n5432\n\n127.0.0.1\n  1  2\nready\n`);
      const pg = await startEmbeddedPostgres({ dataDir, port: await findFreePort(), database: "sigil_probe" });
      try {
        expect(await query<{ v: string }>(pg.url, "SELECT v FROM kept")).toEqual([{ v: "survives" }]);
      } finally {
        await pg.stop();
      }
    } finally {
      holder.kill();
    }
  });

  it("recovers from a killed parent that left its postmaster running", async () => {
    const port = await findFreePort();
    const fixture = fileURLToPath(new URL("./fixtures/embedded-postgres-then-wait.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture, dataDir, String(port)], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const orphanPid = Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    // The orphan still serves: this is the situation to recover from.
    expect(await query<{ one: number }>(url.replace(/\/[^/]+$/, "/sigil"), "SELECT 1 AS one")).toEqual([{ one: 1 }]);

    const pg = await startEmbeddedPostgres({ dataDir, port, database: "sigil_probe" });
    try {
      const newPid = Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
      expect(newPid).not.toBe(orphanPid);
      expect(await query<{ v: string }>(pg.url, "SELECT v FROM kept")).toEqual([{ v: "survives" }]);
    } finally {
      await pg.stop();
    }
  });

  it("refuses a port that is already taken, naming it", async () => {
    const blocker = createServer();
    const port = await findFreePort();
    await new Promise<void>((r) => blocker.listen(port, "127.0.0.1", r));
    try {
      await expect(startEmbeddedPostgres({ dataDir, port })).rejects.toThrow(`port 127.0.0.1:${port} is already in use`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("moves the wreck of an interrupted initdb aside and initialises afresh", async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), "sigil-embedded-pg-wreck-"));
    try {
      await mkdir(path.join(scratch, "postgres"), { recursive: true });
      await writeFile(path.join(scratch, "postgres", "PG_VERSION"), "18\n"); // initdb got this far, then died
      const pg = await startEmbeddedPostgres({ dataDir: scratch, port: await findFreePort() });
      try {
        expect(await query<{ one: number }>(pg.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
      } finally {
        await pg.stop();
      }
      const aside = (await readdir(scratch)).filter((f) => f.startsWith("postgres.incomplete-"));
      expect(aside).toHaveLength(1);
      expect(readFileSync(path.join(scratch, aside[0]!, "PG_VERSION"), "utf8")).toBe("18\n");
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it("deletes the cluster on stop when not persistent", async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), "sigil-embedded-pg-scratch-"));
    try {
      const pg = await startEmbeddedPostgres({ dataDir: scratch, port: await findFreePort(), persistent: false });
      expect(await query<{ db: string }>(pg.url, "SELECT current_database() AS db")).toEqual([{ db: "sigil" }]);
      await pg.stop();
      expect(existsSync(path.join(scratch, "postgres"))).toBe(false);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
