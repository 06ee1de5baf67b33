import { describe, expect, it } from "vitest";
import { waitFor } from "../support/poll.js";

describe("waitFor", () => {
  it("returns the first truthy value, probing until then", async () => {
    let n = 0;
    expect(await waitFor("the third probe", () => (++n >= 3 ? `probe ${n}` : undefined), { intervalMs: 1 })).toBe("probe 3");
  });

  it("returns the first value `until` accepts, even a falsy one", async () => {
    let n = 3;
    expect(await waitFor("zero", async () => --n, { until: (v) => v === 0, intervalMs: 1 })).toBe(0);
  });

  it("fails naming what it waited for, how long, and the last value seen", async () => {
    await expect(waitFor("the count to reach 5", () => ({ count: 2 }), { until: (v) => v.count === 5, timeoutMs: 50, intervalMs: 5 })).rejects.toThrow(
      "timed out after 50 ms waiting for the count to reach 5; last value { count: 2 }",
    );
  });

  it("ends at once on a probe's error, unless told to retry, then names the last error", async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      throw new Error("connection refused");
    };
    await expect(waitFor("the server", failing, { timeoutMs: 5_000 })).rejects.toThrow("connection refused");
    expect(calls).toBe(1);
    await expect(waitFor("the server", failing, { retryErrors: true, timeoutMs: 50, intervalMs: 5 })).rejects.toThrow(
      "timed out after 50 ms waiting for the server; last error Error: connection refused",
    );
    expect(calls).toBeGreaterThan(2);
  });
});
