import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

describe("SIGIL_WORKER_PORT and SIGIL_METRICS", () => {
  // A sealing key given, so that loading the config writes no key file.
  const base = { SIGIL_SEALING_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64")}`, SIGIL_BACKUP_SEALING_KEYS: `b1:${Buffer.alloc(32, 2).toString("base64")}` };

  it("the worker's listener: 9091 by default, 0 turns it off, anything but a TCP port is refused naming the variable", () => {
    expect(loadConfig(base).workerPort).toBe(9091);
    expect(loadConfig({ ...base, SIGIL_WORKER_PORT: "0" }).workerPort).toBe(0);
    expect(loadConfig({ ...base, SIGIL_WORKER_PORT: "19091" }).workerPort).toBe(19091);
    expect(() => loadConfig({ ...base, SIGIL_WORKER_PORT: "70000" })).toThrow(/SIGIL_WORKER_PORT/);
    expect(() => loadConfig({ ...base, SIGIL_WORKER_PORT: "ninety" })).toThrow(/SIGIL_WORKER_PORT/);
  });

  it("the worker's port is one of the service's own, never a webhook destination on loopback", () => {
    expect(loadConfig({ ...base, SIGIL_WORKER_PORT: "19091" }).webhooks.protectedPorts).toContain(19091);
  });

  it("metrics are on by default; off (or false) turns the counting off; anything else is refused", () => {
    expect(loadConfig(base).metricsEnabled).toBe(true);
    expect(loadConfig({ ...base, SIGIL_METRICS: "off" }).metricsEnabled).toBe(false);
    expect(loadConfig({ ...base, SIGIL_METRICS: "false" }).metricsEnabled).toBe(false);
    expect(() => loadConfig({ ...base, SIGIL_METRICS: "sometimes" })).toThrow(/SIGIL_METRICS/);
  });
});
