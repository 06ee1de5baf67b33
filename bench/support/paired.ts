/**
 * Sigil beside its bare baseline, taking turns: the way every case of the request-path benches is measured
 * and printed (bench/run.ts, bench/sessions.ts).
 */
import type { Result } from "./load.js";
import { cpuSeconds, type Running } from "./processes.js";

/** A side's summary over its turns, with the server process's CPU time per answered request (µs). */
export type Measured = Result & { cpuUs?: number };

/**
 * One case: the baseline and Sigil take turns (`rounds` short runs each, alternating), so a change in the
 * shared machine's load during the case falls on both sides alike; run back to back as two long runs, the
 * ratio moved by 20 points between identical runs. Per side: requests per second over all its turns, the
 * mean of the turns' p50, the worst turn's p99, and the server process's CPU time per answered request (µs).
 */
export async function paired(
  bareServer: Running,
  sigilServer: Running,
  run: (server: Running, seconds: number) => Promise<Result>,
  opts: { rounds: number; seconds: number },
): Promise<[Measured, Measured]> {
  const turns: [Result[], Result[]] = [[], []];
  const cpu = [0, 0];
  let cpuKnown = true;
  for (let i = 0; i < opts.rounds; i++) {
    for (const [side, server] of [bareServer, sigilServer].entries()) {
      const before = cpuSeconds(server.child);
      turns[side]!.push(await run(server, opts.seconds / opts.rounds));
      const after = cpuSeconds(server.child);
      if (before === undefined || after === undefined) cpuKnown = false;
      else cpu[side]! += after - before;
    }
  }
  return [summarise(turns[0], cpuKnown ? cpu[0] : undefined), summarise(turns[1], cpuKnown ? cpu[1] : undefined)];
}

/** A side's turns as one: mean req/s and p50, worst p99, totals, and CPU µs per answered request when known. */
export function summarise(rs: readonly Result[], cpuSeconds?: number): Measured {
  const ok = rs.reduce((n, r) => n + r.ok, 0);
  return {
    rps: Math.round(rs.reduce((n, r) => n + r.rps, 0) / rs.length),
    p50: Math.round(rs.reduce((n, r) => n + r.p50, 0) / rs.length),
    p99: Math.max(...rs.map((r) => r.p99)),
    ok,
    failed: rs.reduce((n, r) => n + r.failed, 0),
    cpuUs: cpuSeconds !== undefined && ok ? Math.round((cpuSeconds * 1e6) / ok) : undefined,
  };
}

/** The table's header: the columns `row` fills. */
export const TABLE_HEADER = [
  "| case | Sigil req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Sigil / baseline | server CPU µs/req, Sigil / baseline = baseline÷Sigil | errors |",
  "|---|---|---|---|---|---|---|---|---|---|",
].join("\n");

/** One markdown row of a case: both sides, the throughput ratio and the CPU per request. */
export function row(name: string, [bare, sigil]: [Measured, Measured]): string {
  const ratio = bare.rps ? sigil.rps / bare.rps : 0;
  const cpu = sigil.cpuUs && bare.cpuUs ? `${sigil.cpuUs} / ${bare.cpuUs} = ${((bare.cpuUs / sigil.cpuUs) * 100).toFixed(0)} %` : "-";
  return `| ${name} | ${sigil.rps} | ${sigil.p50} | ${sigil.p99} | ${bare.rps} | ${bare.p50} | ${bare.p99} | ${(ratio * 100).toFixed(0)} % | ${cpu} | ${sigil.failed + bare.failed} |`;
}
