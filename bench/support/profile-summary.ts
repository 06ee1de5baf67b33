/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by place (a package in node_modules, a folder of
 * src/, node internals, GC, idle) and the heaviest functions, as percentages of the busy (non-idle) time.
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

function placeOf(url: string, fn: string): string {
  if (fn === "(idle)") return "(idle)";
  if (fn === "(garbage collector)") return "(gc)";
  if (fn === "(program)") return "(program)";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/src\/(gen|[^/]+\/(?:interceptors|[^/]+)?)/.exec(url);
  if (src) return `src/${src[1]}`;
  if (url.startsWith("node:") || url === "") return "node internals";
  return url;
}

/** `skipMs`: samples of the first milliseconds (start-up, module loading) are left out. */
export function summarise(file: string, top = 25, skipMs = 0): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfByNode = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= skipMs * 1000) selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const places = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfByNode) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const place = placeOf(url, functionName);
    if (place !== "(idle)") busy += us;
    places.set(place, (places.get(place) ?? 0) + us);
    const fn = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules|src)\//, "$1/")}:${lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1)} %`;
  const lines = [`busy ${(busy / 1e6).toFixed(2)} s, idle ${((places.get("(idle)") ?? 0) / 1e6).toFixed(2)} s`, "", "| place (self time) | share of busy |", "|---|---|"];
  for (const [p, us] of [...places].filter(([p]) => p !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, 18)) lines.push(`| ${p} | ${pct(us)} |`);
  lines.push("", "| function (self time) | share of busy |", "|---|---|");
  for (const [f, us] of [...fns].filter(([f]) => !f.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`| ${f} | ${pct(us)} |`);
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(summarise(process.argv[2]!, Number(process.argv[3] ?? 25), Number(process.argv[4] ?? 0)));
