import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startManagedProcess } from "../../src/infra/managed-process.js";
import { waitFor } from "../support/poll.js";

/** Alive and not a zombie (a killed orphan stays a zombie until init reaps it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("startManagedProcess", () => {
  it("keeps the child's recent output and its exit code", async () => {
    const p = startManagedProcess("sh", ["-c", "echo one; echo two >&2; exit 3"]);
    expect(await p.exited).toBe(3);
    expect(p.recentOutput().split("\n").sort()).toEqual(["one", "two"]);
  });

  it("stop() terminates a running child", async () => {
    const p = startManagedProcess("sleep", ["1000"]);
    const pid = p.child.pid!;
    expect(isAlive(pid)).toBe(true);
    await p.stop();
    expect(isAlive(pid)).toBe(false);
    await expect(p.stop()).resolves.toBeUndefined(); // twice is fine
  });

  it("stop() escalates to SIGKILL for a child that ignores SIGTERM", async () => {
    const p = startManagedProcess("sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"]);
    await waitFor("the child's trap set", () => p.recentOutput().includes("ready"), { intervalMs: 20 });
    const started = Date.now();
    await p.stop(300);
    expect(await p.exited).toBe("SIGKILL");
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("reports a missing executable through exited and recentOutput", async () => {
    const p = startManagedProcess("/nonexistent/binary", []);
    await p.exited;
    expect(p.recentOutput()).toMatch(/ENOENT/);
  });

  it("kills its children when the parent process exits", async () => {
    const fixture = fileURLToPath(new URL("./fixtures/spawn-then-exit.ts", import.meta.url));
    const run = spawnSync(process.execPath, ["--import", "tsx", fixture], { encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(0);
    const pid = Number(run.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is delivered synchronously in the exit hook; give the kernel a moment to reap.
    await waitFor(`child ${pid} gone`, () => !isAlive(pid), { timeoutMs: 1_000, intervalMs: 20 });
  });
});
