import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPortFree } from "../../src/infra/ports.js";
import { bundledTemporalCliPath } from "../../src/infra/temporal-cli.js";
import { findTemporalCli, startTemporalDevServer } from "../../src/infra/temporal-dev-server.js";
import { freeRuntimePorts } from "./fixtures/runtime-process.js";

/** A frontend port whose UI port (+1000) is free too, both below the kernel's ephemeral range (fixtures/runtime-process.ts says why). */
async function freePortPair(): Promise<number> {
  return (await freeRuntimePorts()).temporal;
}

describe("findTemporalCli", () => {
  let dir: string;
  const saved = { PATH: process.env.PATH, TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "sigil-temporal-cli-"));
    for (const sub of ["on-path", "from-env"]) {
      await mkdir(path.join(dir, sub));
      await writeFile(path.join(dir, sub, "temporal"), "#!/bin/sh\nexit 0\n");
      await chmod(path.join(dir, sub, "temporal"), 0o755);
    }
    await writeFile(path.join(dir, "not-executable"), "");
  });
  afterAll(async () => {
    process.env.PATH = saved.PATH;
    if (saved.TEMPORAL_CLI_PATH === undefined) delete process.env.TEMPORAL_CLI_PATH;
    else process.env.TEMPORAL_CLI_PATH = saved.TEMPORAL_CLI_PATH;
    await rm(dir, { recursive: true, force: true });
  });

  it("prefers the explicit path, then TEMPORAL_CLI_PATH, then PATH", () => {
    process.env.TEMPORAL_CLI_PATH = path.join(dir, "from-env", "temporal");
    process.env.PATH = path.join(dir, "on-path");
    expect(findTemporalCli(path.join(dir, "on-path", "temporal"))).toBe(path.join(dir, "on-path", "temporal"));
    expect(findTemporalCli()).toBe(path.join(dir, "from-env", "temporal"));
  });

  it("rejects an explicit path that is not executable", () => {
    expect(() => findTemporalCli(path.join(dir, "not-executable"))).toThrow(/is not an executable file/);
  });

  it("searches PATH before the repo's .tools/bin", () => {
    delete process.env.TEMPORAL_CLI_PATH;
    process.env.PATH = `/nonexistent${path.delimiter}${path.join(dir, "on-path")}`;
    expect(findTemporalCli()).toBe(path.join(dir, "on-path", "temporal"));
    process.env.PATH = "/nonexistent";
    // .tools/bin/temporal exists once `npm run tools:temporal` (or .ci/run, or the global setup) built it.
    expect(findTemporalCli()).toBe(existsSync(bundledTemporalCliPath) ? bundledTemporalCliPath : undefined);
  });
});

describe("startTemporalDevServer", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "sigil-temporal-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves the namespace and the UI, persists to its SQLite file, and frees its ports on stop", async () => {
    const port = await freePortPair();
    const workflowId = `persisted-${Date.now()}`;

    const first = await startTemporalDevServer({ port, dataDir, namespace: "sigil-test" });
    try {
      expect(first.address).toBe(`127.0.0.1:${port}`);
      expect(first.uiUrl).toBe(`http://127.0.0.1:${port + 1000}`);
      expect((await fetch(first.uiUrl!)).status).toBe(200);
      const connection = await Connection.connect({ address: first.address });
      try {
        // No worker: the workflow just waits in its task queue, which is all persistence needs.
        const client = new Client({ connection, namespace: "sigil-test" });
        await client.workflow.start("notRegistered", { taskQueue: "nobody-polls", workflowId });
      } finally {
        await connection.close();
      }
    } finally {
      await first.stop();
    }
    expect(await isPortFree(port)).toBe(true);
    expect(await isPortFree(port + 1000)).toBe(true);

    const second = await startTemporalDevServer({ port, dataDir, namespace: "sigil-test", headless: true });
    try {
      expect(second.uiUrl).toBeUndefined();
      const connection = await Connection.connect({ address: second.address });
      try {
        const client = new Client({ connection, namespace: "sigil-test" });
        const description = await client.workflow.getHandle(workflowId).describe();
        expect(description.status.name).toBe("RUNNING");
        // Registered at every start, also on a database that has them already (src/temporal/search-attributes.ts).
        const attributes = await connection.operatorService.listSearchAttributes({ namespace: "sigil-test" });
        expect(Object.keys(attributes.customAttributes ?? {})).toEqual(expect.arrayContaining(["SigilEnvironmentId", "SigilUserId", "SigilOperation"]));
      } finally {
        await connection.close();
      }
    } finally {
      await second.stop();
    }
  });

  it("fails clearly when the port is taken", async () => {
    const blocker = createServer();
    const port = await freePortPair();
    await new Promise<void>((r) => blocker.listen(port, "127.0.0.1", r));
    try {
      await expect(startTemporalDevServer({ port, headless: true })).rejects.toThrow(`port 127.0.0.1:${port} is already in use`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("fails with its output and the install hint when the CLI does not start a server", async () => {
    const fake = path.join(dataDir, "broken-temporal");
    await writeFile(fake, "#!/bin/sh\necho 'unknown command \"server\"' >&2\nexit 2\n");
    await chmod(fake, 0o755);
    const attempt = startTemporalDevServer({ cliPath: fake, port: await freePortPair(), headless: true });
    await expect(attempt).rejects.toThrow(/it exited \(2\)[\s\S]*unknown command "server"[\s\S]*npm run tools:temporal/);
  });
});
