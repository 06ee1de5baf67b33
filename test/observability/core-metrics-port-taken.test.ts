import net from "node:net";
import { Runtime } from "@temporalio/worker";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/log.js";
import { scrapeCoreMetrics } from "../../src/temporal/core-metrics.js";
import { installTemporalRuntimeLogger } from "../../src/temporal/runtime-logger.js";

/**
 * The worker core's exporter binds a port picked a moment earlier; when another process took it in between,
 * the worker still starts, with the process's logger, and says its core metrics are off. (Its own file: a
 * process installs one Temporal runtime.)
 */
describe("the worker core's metrics exporter cannot bind its port", () => {
  it("installs the runtime without it, warning once; /metrics then has no core part", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", () => resolve()));
    const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
    const log = { debug: () => {}, info: () => {}, error: () => {}, warn: (msg: string, fields?: Record<string, unknown>) => warnings.push({ msg, fields }) } as unknown as Logger;
    try {
      installTemporalRuntimeLogger(log, false, `127.0.0.1:${(taken.address() as net.AddressInfo).port}`);
    } finally {
      taken.close();
    }
    expect(warnings).toEqual([{ msg: "the Temporal worker's own metrics are off: their exporter could not start", fields: { error: expect.stringMatching(/in use/) } }]);
    // The runtime in place is ours: its log lines reach the process's logger.
    Runtime.instance().logger.warn("from the SDK");
    expect(warnings.at(-1)).toMatchObject({ msg: "from the SDK", fields: { source: "temporal" } });
    expect(await scrapeCoreMetrics(500)).toBeUndefined();
  });
});
