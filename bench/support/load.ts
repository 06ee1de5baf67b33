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

export async function httpLoad(opts: {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Headers of each request on top of `headers` (e.g. a different session token per request). */
  headersFor?: () => Record<string, string>;
  /** Each answer with the headersFor headers its request went with (e.g. to replace a token it rotated). */
  onAnswer?: (sent: Record<string, string>, status: number, body: string) => void;
}): Promise<Result> {
  const { headersFor, onAnswer } = opts;
  // A connection sends its next request only after the last answer: its context holds what that one sent.
  type Sent = { sent?: Record<string, string> };
  const requests = headersFor
    ? [
        {
          setupRequest: (req: autocannon.Request, context: object) => {
            const extra = headersFor();
            (context as Sent).sent = extra;
            return { ...req, headers: { ...req.headers, ...extra } };
          },
          ...(onAnswer ? { onResponse: (status: number, body: string, context: object) => onAnswer((context as Sent).sent ?? {}, status, body) } : {}),
        },
      ]
    : undefined;
  const r = await autocannon({ url: opts.url, method: opts.method ?? "GET", headers: opts.headers, body: opts.body, connections: opts.connections, duration: opts.seconds, requests });
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
  return summarise(latencies, failed, (performance.now() - started) / 1000);
}

/**
 * `connections` callers sending prepared `items`, each once, until all are sent or `seconds` have passed
 * (work that cannot repeat, like a signed sign-in message with its single-use nonce). `elapsed` is the wall
 * time in seconds; the first failure's message is kept to say why.
 */
export async function drainLoad<T>(
  items: readonly T[],
  send: (item: T) => Promise<unknown>,
  connections: number,
  seconds: number,
): Promise<Result & { elapsed: number; firstError?: string }> {
  const latencies: number[] = [];
  let failed = 0;
  let firstError: string | undefined;
  let next = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < items.length && performance.now() < end) {
        const item = items[next++]!;
        const t = performance.now();
        try {
          await send(item);
          latencies.push(performance.now() - t);
        } catch (err) {
          failed++;
          firstError ??= String(err);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { ...summarise(latencies, failed, elapsed), elapsed, firstError };
}

function summarise(latencies: number[], failed: number, elapsed: number): Result {
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
