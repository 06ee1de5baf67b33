/**
 * Writes recorded undeclared errors into the RPCs' proto declarations:
 *
 *   SIGIL_UNDECLARED_ERRORS=warn SIGIL_UNDECLARED_ERRORS_LOG=/tmp/undeclared.jsonl npx vitest run
 *   npm run errors:declare -- /tmp/undeclared.jsonl
 *
 * Each line of the files is {method, code, status} (src/rpc/undeclared-errors.ts writes them; a failed test
 * run prints its own). Every (code, status) the RPC does not declare yet, its rules included
 * (src/rpc/declared-errors.ts), is added to the `errors` list of its `option (sigil.options.v0.method)`
 * block, kept sorted by status then code; then `buf generate` runs. Lines of methods that are not Sigil's
 * (a test's own service) are listed and skipped. Review the diff: a recorded error may be a defect to fix
 * rather than a code to declare (a 500 is never declared; an `internal` record means a bug).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DescMethod } from "@bufbuild/protobuf";
import { declaredErrors, type DeclaredError } from "../src/rpc/declared-errors.js";
import { apiServices } from "../src/rpc/routes.js";
import type { UndeclaredErrorRecord } from "../src/rpc/undeclared-errors.js";

const root = fileURLToPath(new URL("..", import.meta.url));

function readRecords(files: readonly string[]): UndeclaredErrorRecord[] {
  return files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as UndeclaredErrorRecord),
  );
}

/** The `option (sigil.options.v0.method) = {...};` block of one rpc: its text range in the proto source. */
function methodBlock(source: string, method: DescMethod): { start: number; end: number } {
  const service = new RegExp(`\\bservice\\s+${method.parent.name}\\s*\\{`).exec(source);
  if (!service) throw new Error(`service ${method.parent.name} not found in ${method.parent.file.name}`);
  const rpc = new RegExp(`\\brpc\\s+${method.name}\\s*\\(`, "g");
  rpc.lastIndex = service.index;
  const found = rpc.exec(source);
  if (!found) throw new Error(`rpc ${method.name} not found in ${method.parent.file.name}`);
  const option = source.indexOf("option (sigil.options.v0.method) = {", found.index);
  const nextRpc = source.slice(found.index + 1).search(/\brpc\s+\w+\s*\(/);
  if (option < 0 || (nextRpc >= 0 && option > found.index + 1 + nextRpc)) throw new Error(`${method.parent.typeName}.${method.name} has no sigil.options.v0.method block`);
  let depth = 0;
  for (let i = source.indexOf("{", option); i < source.length; i++) {
    if (source[i] === "{") depth++;
    else if (source[i] === "}" && --depth === 0) return { start: option, end: i };
  }
  throw new Error(`unbalanced option block of ${method.name}`);
}

/** One `errors: {code: "x", status: 409}` line (the repeated-field form: see options.proto for why not a list). */
const ERROR_LINE = /\n[ \t]*errors:\s*\{\s*code:\s*"([^"]+)"\s*,?\s*status:\s*(\d+)\s*\}/g;

/** The block with `entries` added to its `errors` lines, all of them last, sorted by status then code. */
export function withErrors(block: string, entries: readonly DeclaredError[]): string {
  const all = new Map<string, DeclaredError>();
  for (const m of block.matchAll(ERROR_LINE)) all.set(`${m[2]} ${m[1]}`, { code: m[1], status: Number(m[2]) });
  for (const e of entries) all.set(`${e.status} ${e.code}`, e);
  const sorted = [...all.values()].sort((a, b) => a.status - b.status || (a.code < b.code ? -1 : 1));
  const indent = /\n([ \t]*)\w+:/.exec(block)?.[1] ?? "      ";
  // Before the block's closing brace, after its other fields.
  const body = block.replace(ERROR_LINE, "").replace(/\s*$/, "");
  return `${body}${sorted.map((e) => `\n${indent}errors: {code: "${e.code}", status: ${e.status}}`).join("")}\n${indent.slice(2)}`;
}

function main(files: string[]) {
  if (!files.length) {
    process.stderr.write("usage: npm run errors:declare -- <undeclared-errors.jsonl>...\n");
    process.exit(2);
  }
  const methods = new Map<string, DescMethod>(apiServices.flatMap((s) => s.methods.map((m) => [`${s.typeName}.${m.name}`, m] as const)));
  const byMethod = new Map<DescMethod, DeclaredError[]>();
  const skipped = new Set<string>();
  for (const r of readRecords(files)) {
    const method = methods.get(r.method);
    if (!method) {
      skipped.add(r.method);
      continue;
    }
    if (r.status >= 500 && r.status !== 503) {
      skipped.add(`${r.method} ${r.code} ${r.status} (a 5xx other than 503 is a defect to fix, not a code to declare)`);
      continue;
    }
    if (declaredErrors(method).some((d) => d.code === r.code && d.status === r.status)) continue;
    const list = byMethod.get(method) ?? [];
    if (!list.some((e) => e.code === r.code && e.status === r.status)) list.push({ code: r.code, status: r.status });
    byMethod.set(method, list);
  }
  const byFile = new Map<string, [DescMethod, DeclaredError[]][]>();
  for (const [m, entries] of byMethod) byFile.set(m.parent.file.name, [...(byFile.get(m.parent.file.name) ?? []), [m, entries]]);
  for (const [name, list] of byFile) {
    // protobuf-es names a file by its path without the .proto extension.
    const file = path.join(root, "proto", `${name}.proto`);
    let source = readFileSync(file, "utf8");
    for (const [method, entries] of list) {
      const { start, end } = methodBlock(source, method);
      source = source.slice(0, start) + withErrors(source.slice(start, end), entries) + source.slice(end);
      process.stdout.write(`${method.parent.typeName}.${method.name}: ${entries.map((e) => `${e.code} ${e.status}`).join(", ")}\n`);
    }
    writeFileSync(file, source);
  }
  for (const s of skipped) process.stdout.write(`skipped: ${s}\n`);
  if (byFile.size) execFileSync("npx", ["buf", "generate"], { cwd: root, stdio: "inherit" });
  process.stdout.write(`${byMethod.size} RPC(s) in ${byFile.size} file(s) declare more errors\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
