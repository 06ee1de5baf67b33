import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startManagedProcess } from "../../src/infra/managed-process.js";
import { supervise, type SupervisedChild } from "../../src/infra/supervisor.js";
import { waitFor } from "../support/poll.js";

/** Real child processes (`sleep`), killed the way a crash or an operator would. */

function recordingLog() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => lines.push({ level, msg, fields });
  return { lines, log: { info: at("info"), warn: at("warn"), error: at("error") } };
}

function sleeper(): SupervisedChild & { pid: number } {
  const p = startManagedProcess("sleep", ["1000"]);
  return { pid: p.child.pid!, exited: p.exited, stop: () => p.stop(1_000) };
}

describe("supervise", () => {
  it("restarts a child that dies, logging its exit code, and stops it (and restarts no more) on stop()", async () => {
    const { lines, log } = recordingLog();
    const children = [sleeper()];
    const sup = supervise(children[0]!, {
      name: "sleeper",
      log,
      initialBackoffMs: 50,
      start: async () => {
        const c = sleeper();
        children.push(c);
        return c;
      },
    });
    process.kill(children[0]!.pid, "SIGKILL");
    await waitFor("first restart", () => sup.restarts === 1, { timeoutMs: 10_000, intervalMs: 20 });
    expect(lines[0]).toMatchObject({ level: "error", msg: "sleeper exited unexpectedly; restarting", fields: { exitCode: "SIGKILL" } });
    expect(lines[1]).toMatchObject({ level: "info", msg: "sleeper restarted" });

    process.kill(children[1]!.pid, "SIGTERM");
    await waitFor("second restart", () => sup.restarts === 2, { timeoutMs: 10_000, intervalMs: 20 });
    expect(lines[2]?.fields).toMatchObject({ exitCode: "SIGTERM" });

    await sup.stop();
    expect(await children[2]!.exited).toBe("SIGTERM");
    // Nothing to wait for: the test is that no restart follows within this time.
    await sleep(200);
    expect(children).toHaveLength(3);
    expect(sup.restarts).toBe(2);
  });

  it("keeps retrying a start that fails, with a backoff that doubles up to its cap", async () => {
    const { lines, log } = recordingLog();
    const first = sleeper();
    let attempts = 0;
    const sup = supervise(first, {
      name: "flaky",
      log,
      initialBackoffMs: 20,
      maxBackoffMs: 80,
      start: async () => {
        if (++attempts < 5) throw new Error(`port taken (attempt ${attempts})`);
        return sleeper();
      },
    });
    process.kill(first.pid, "SIGKILL");
    await waitFor("restarted after failures", () => sup.restarts === 1, { timeoutMs: 10_000, intervalMs: 20 });
    const failures = lines.filter((l) => l.msg === "flaky restart failed; retrying");
    expect(failures.map((l) => l.fields?.retryInMs)).toEqual([40, 80, 80, 80]);
    expect(failures[0]?.fields?.error).toBe("port taken (attempt 1)");
    expect(lines.at(-1)).toMatchObject({ msg: "flaky restarted", fields: { afterFailedAttempts: 4 } });
    await sup.stop();
  });

  it("after retire(), a child's exit is not a crash: nothing is restarted", async () => {
    const { lines, log } = recordingLog();
    const first = sleeper();
    let started = 0;
    const sup = supervise(first, { name: "retired", log, initialBackoffMs: 10, start: async () => (started++, sleeper()) });
    sup.retire();
    process.kill(first.pid, "SIGINT"); // a terminal's Ctrl-C reaches the children too
    await first.exited;
    // Nothing to wait for: the test is that no restart follows within this time.
    await sleep(100);
    expect(started).toBe(0);
    expect(lines).toEqual([]);
    await sup.stop();
  });
});
