import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Connection } from "@temporalio/client";
import { findTemporalCli, startTemporalDevServer } from "../../src/infra/temporal-dev-server.js";
import { SEARCH_ATTRIBUTES } from "../../src/workflows/search-attributes.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "./fixtures/runtime-process.js";

/**
 * The embedded Temporal dev server can die while it starts (it picks free ports for its internal services
 * and binds them a moment later; another process may take one in between): the first start tries again
 * instead of failing the whole start.
 */
const dirs: string[] = [];
const running: RuntimeProcess[] = [];
const start = (...args: Parameters<typeof startRuntimeProcess>) => {
  const rt = startRuntimeProcess(...args);
  running.push(rt);
  return rt;
};

afterAll(async () => {
  for (const rt of running) {
    if (rt.child.exitCode !== null || rt.child.signalCode !== null) continue;
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
    const rt = start(dataDir, await freeRuntimePorts(), { env: { TEMPORAL_CLI_PATH: flaky } });
    await waitHealthy(rt);
    const retried = rt.logs.filter((l) => l.msg === "temporal dev server exited while starting; trying again");
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ level: "warn", attempt: 1 });
    rt.child.kill("SIGTERM");
    await rt.exited;
  }, 120_000);

  it("registers the workflows' search attributes on the data dir of an earlier start, which the dev server's flags do not", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "sigil-start-data-"));
    dirs.push(dataDir);
    const ports = await freeRuntimePorts();
    // An earlier start's Temporal database, made without Sigil's search attributes.
    const older = await startTemporalDevServer({ port: ports.temporal, dataDir, headless: true });
    const before = await Connection.connect({ address: older.address });
    const known = Object.keys((await before.operatorService.listSearchAttributes({ namespace: "default" })).customAttributes);
    await before.close();
    await older.stop(3_000);
    expect(known.filter((n) => n.startsWith("Sigil")).length).toBeGreaterThan(0); // the flags work on a new database

    // Forget them (as a database from before they existed), then start the service on that data dir.
    const conn = await Connection.connect({ address: older.address }).catch(() => null);
    expect(conn).toBeNull(); // the older server is gone
    const bare = await startTemporalDevServer({ port: ports.temporal, dataDir, headless: true });
    const admin = await Connection.connect({ address: bare.address });
    await admin.operatorService.removeSearchAttributes({ namespace: "default", searchAttributes: Object.values(SEARCH_ATTRIBUTES).map((a) => a.name) });
    await admin.close();
    await bare.stop(3_000);

    const rt = start(dataDir, ports);
    await waitHealthy(rt);
    const check = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    const after = Object.keys((await check.operatorService.listSearchAttributes({ namespace: "default" })).customAttributes);
    await check.close();
    expect(after).toEqual(expect.arrayContaining(Object.values(SEARCH_ATTRIBUTES).map((a) => a.name)));
    rt.child.kill("SIGTERM");
    await rt.exited;
  }, 120_000);
});
