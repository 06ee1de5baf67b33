import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@temporalio/client";
import { connectTemporalClient } from "../../src/temporal/flows.js";
import { createEngineMonitor } from "../../src/temporal/engine-monitor.js";
import { createLogger } from "../../src/log.js";
import { testEnv } from "../setup/env.js";

// The engine monitor's probe: GetSystemInfo with its own deadline, over a connection of its own.
let client: Client;
beforeAll(async () => {
  client = await connectTemporalClient(testEnv().temporalAddress, "default");
});
afterAll(() => client.connection.close());

const quiet = createLogger("silent");

describe("the engine monitor's probe", () => {
  it("finds a running Temporal frontend reachable", async () => {
    const monitor = createEngineMonitor(client, testEnv().temporalAddress, quiet, { intervalMs: 60_000 });
    try {
      // Older than an interval plus a probe's deadline: check() probes now.
      await new Promise((r) => setTimeout(r, 10));
      expect(await monitor.check()).toBe(true);
      expect(monitor.knownDown()).toBe(false);
    } finally {
      monitor.stop();
    }
  });

  it("finds a frontend that never answers unreachable within the probe's deadline", async () => {
    // A port that accepts connections and never speaks gRPC: only the deadline ends the probe.
    const silent = createServer(() => undefined).listen(0, "127.0.0.1");
    await new Promise((r) => silent.once("listening", r));
    const port = (silent.address() as { port: number }).port;
    const lines: string[] = [];
    const monitor = createEngineMonitor(client, `127.0.0.1:${port}`, createLogger("error", (l) => lines.push(l)), {
      intervalMs: 20,
      probeTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      await expect.poll(() => monitor.knownDown(), { timeout: 5_000 }).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(lines.join("\n")).toContain("workflow engine unreachable");
    } finally {
      monitor.stop();
      silent.close();
    }
  });
});
