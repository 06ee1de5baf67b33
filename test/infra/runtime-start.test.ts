import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findTemporalCli } from "../../src/infra/temporal-dev-server.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";

/**
 * The embedded Temporal dev server can die while it starts (it picks free ports for its internal services
 * and binds them a moment later; another process may take one in between): the first start tries again
 * instead of failing the whole start.
 */
const dirs: string[] = [];
let rt: RuntimeProcess | undefined;

afterAll(async () => {
  if (rt && rt.child.exitCode === null && rt.child.signalCode === null) {
    rt.child.kill("SIGTERM");
    await rt.exited;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("starting the embedded Temporal dev server", () => {
  it("a server that dies while starting is started again, and the service comes up", async () => {
    const real = findTemporalCli(undefined);
    expect(real, "a Temporal CLI (npm start builds one)").toBeTruthy();
    const dir = await mkdtemp(path.join(tmpdir(), "sigil-start-"));
    dirs.push(dir);
    // A CLI that dies at its first start (as on a lost port race), then is the real one.
    const flaky = path.join(dir, "temporal");
    await writeFile(flaky, `#!/bin/sh\nif [ ! -e "${dir}/tried" ]; then touch "${dir}/tried"; echo "panic: listen tcp: address already in use" >&2; exit 2; fi\nexec "${real}" "$@"\n`);
    await chmod(flaky, 0o755);

    const dataDir = await mkdtemp(path.join(tmpdir(), "sigil-start-data-"));
    dirs.push(dataDir);
    rt = startRuntimeProcess(dataDir, await freeRuntimePorts(), { env: { TEMPORAL_CLI_PATH: flaky } });
    await waitHealthy(rt);
    const retried = rt.logs.filter((l) => l.msg === "temporal dev server exited while starting; trying again");
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ level: "warn", attempt: 1 });
  }, 120_000);
});
