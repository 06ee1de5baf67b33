/** Load generators: autocannon for HTTP/1.1 and a closed loop of concurrent callers for gRPC. */
import autocannon from "autocannon";

export interface Result {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  /** Every latency (ms), sorted: only callLoad keeps them, so results of several generators can be merged. */
  latencies?: number[];
}

export async function httpLoad(opts: { url: string; method?: "GET" | "POST"; headers?: Record<string, string>; body?: string; connections: number; seconds: number }): Promise<Result> {
  const r = await autocannon({ url: opts.url, method: opts.method ?? "GET", headers: opts.headers, body: opts.body, connections: opts.connections, duration: opts.seconds });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, ok: r["2xx"], failed: r.non2xx + r.errors + r.timeouts };
}

/** `connections` callers each calling `call` back to back for `seconds`; latency percentiles in ms. */
export async function callLoad(call: () => Promise<unknown>, connections: number, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t);
        } catch {
          failed++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { rps: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), ok: latencies.length, failed, latencies };
}

/** Results of generators that ran side by side for the same time: throughput adds up, percentiles merge. */
export function mergeResults(parts: readonly Result[]): Result {
  const latencies = parts.flatMap((p) => p.latencies ?? []).sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const sum = (f: (r: Result) => number) => parts.reduce((n, r) => n + f(r), 0);
  return { rps: sum((r) => r.rps), p50: at(0.5), p99: at(0.99), ok: sum((r) => r.ok), failed: sum((r) => r.failed) };
}
