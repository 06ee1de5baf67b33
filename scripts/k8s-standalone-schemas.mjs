// Makes kubeconform-readable schemas out of the "local" ones the PyPI package kubernetes-validate ships:
// those point into one shared file by an absolute path ("/api/_definitions.json#/$defs/..."), which
// kubeconform cannot resolve from a local directory. Each written schema carries the definitions it reaches
// under its own $defs, its references rewritten to "#/$defs/...", so it stands alone.
// Usage: node scripts/k8s-standalone-schemas.mjs <dir of *-local-strict schemas> <output dir>
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error("usage: node scripts/k8s-standalone-schemas.mjs <from dir> <to dir>");
  process.exit(2);
}
const definitions = JSON.parse(readFileSync(path.join(from, "_definitions.json"), "utf8")).$defs;
// Schemas point into the shared file by its path; definitions point to each other within it ("#/$defs/...").
const REF = /^(?:\/api\/_definitions\.json)?#\/\$defs\/(.+)$/;

/** The value with its references rewritten; the names of the definitions it refers to are added to `seen`. */
function rewrite(value, seen) {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, seen));
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const match = key === "$ref" && typeof v === "string" ? REF.exec(v) : null;
    if (match) {
      seen.add(match[1]);
      out[key] = `#/$defs/${match[1]}`;
    } else out[key] = rewrite(v, seen);
  }
  return out;
}

mkdirSync(to, { recursive: true });
let written = 0;
for (const file of readdirSync(from)) {
  if (!file.endsWith(".json") || file.startsWith("_")) continue;
  const seen = new Set();
  const schema = rewrite(JSON.parse(readFileSync(path.join(from, file), "utf8")), seen);
  const defs = {};
  const queue = [...seen];
  while (queue.length) {
    const name = queue.pop();
    if (defs[name] || !definitions[name]) continue;
    const found = new Set();
    defs[name] = rewrite(definitions[name], found);
    for (const n of found) if (!defs[n]) queue.push(n);
  }
  writeFileSync(path.join(to, file), JSON.stringify({ ...schema, $defs: defs }));
  written++;
}
console.log(`wrote ${written} standalone schemas to ${to}`);
