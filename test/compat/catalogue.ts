import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { builtSdkOperations } from "./sdk-scope.js";
import { neutralPath } from "../support/neutral-words.js";

/**
 * The operations of the published client, read from the installed package itself (its API classes'
 * compiled code), so that a new client version is one dependency bump away from a new report and no
 * operation can be forgotten by hand.
 */
export interface ClientOperation {
  /** API class, e.g. `AllowlistsApi`. */
  api: string;
  /** Method name on the class (the spec's operationId), e.g. `createAllowlistByEnvironmentId`. */
  operation: string;
  method: string;
  /** Path template as the client writes it, e.g. `/environments/{environmentId}/allowlists`. */
  path: string;
  /** What the client does with the response: JSON (parsed with `model`FromJSON), void, text or blob. */
  response: "json" | "void" | "text" | "blob";
  /** Response model name (`Allowlist`, `Array<Allowlist>` is reported as `Allowlist` with `array`). */
  model?: string;
  array: boolean;
  /**
   * The type the client declares for the parsed answer (`Allowlist`, `Array<string>`, `Array<object>`), read
   * from the class's declaration file: it also names the bare arrays the client parses without a model.
   */
  responseType?: string;
}

const require = createRequire(import.meta.url);
export const clientPackageDir = dirname(require.resolve("@dynamic-labs/sdk-api/package.json"));
export const clientVersion: string = JSON.parse(readFileSync(join(clientPackageDir, "package.json"), "utf8")).version;

/** Each `<op>Raw(...)` method of the generated classes: its path, method and response handling. */
export function readClientOperations(): ClientOperation[] {
  const dir = join(clientPackageDir, "src", "apis");
  const ops: ClientOperation[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith("Api.js"))) {
    const source = readFileSync(join(dir, file), "utf8");
    const declarations = readFileSync(join(dir, file.replace(/\.js$/, ".d.ts")), "utf8");
    const methodRe = /\n {4}(\w+)Raw\((?:requestParameters, )?initOverrides\) \{([\s\S]*?)\n {4}\}\n/g;
    for (const m of source.matchAll(methodRe)) {
      const body = m[2];
      const path = body.match(/path: `([^`]*)`/)?.[1];
      const method = body.match(/method: '(\w+)'/)?.[1];
      if (!path || !method) throw new Error(`cannot read ${file} ${m[1]}`);
      let response: ClientOperation["response"];
      let model: string | undefined;
      let array = false;
      const json = body.match(/new JSONApiResponse\(response(?:, \(jsonValue\) => (.*?))?\);/);
      if (json) {
        response = "json";
        const parse = json[1] ?? "";
        array = parse.startsWith("jsonValue.map(");
        model = parse.match(/(\w+)FromJSON/)?.[1];
      } else if (body.includes("new VoidApiResponse(")) response = "void";
      else if (body.includes("new TextApiResponse(")) response = "text";
      else if (body.includes("new BlobApiResponse(")) response = "blob";
      else throw new Error(`unknown response handling in ${file} ${m[1]}`);
      const declared = declarations.match(new RegExp(`\\n {4}${m[1]}Raw\\([^\\n]*\\): Promise<runtime\\.ApiResponse<(.+)>>;\\n`))?.[1];
      const responseType = response === "json" ? declared : undefined;
      if (response === "json" && !responseType) throw new Error(`cannot read the answer type of ${file} ${m[1]}`);
      ops.push({ api: file.replace(/\.js$/, ""), operation: m[1], method, path, response, model, array, responseType });
    }
  }
  return ops;
}

/** Method and path of every operation of the contract (docs/spec/operations.md). */
export function readContractOperations(operationsMd: string): { tag: string; method: string; path: string; operation: string }[] {
  return operationsMd
    .split("\n")
    .filter((l) => /^\| (D\d+|I|G|X) \|/.test(l))
    .map((l) => l.split("|").map((c) => c.trim()))
    .map((c) => ({ tag: c[1], method: c[3], path: c[4], operation: c[5] }));
}

export type Scope = { included: true } | { included: false; reason: string };

/**
 * Which client operations this suite must drive: those outside `/sdk/` whose method and path are the
 * contract's (operations.md writes vendor-named segments with neutral words, so an operation whose client
 * path names a vendor does not match), plus the browser preflights (OPTIONS) the client declares on
 * contract paths.
 */
export function scopeOf(op: ClientOperation, contract: Set<string>, sdkPaths: ReadonlySet<string> = builtSdkPaths()): Scope {
  if (op.path.startsWith("/sdk/")) {
    if (op.api !== "SDKApi") return { included: false, reason: "SDK operation outside SDKApi (SDKApi's twin is driven)" };
    const built = builtSdkOperations.has(op.operation) || (op.method === "OPTIONS" && sdkPaths.has(op.path));
    if (!built) return { included: false, reason: "SDK operation of a later issue" };
    if (op.method === "OPTIONS") return { included: true };
    // A built SDK operation whose client path names a vendor is driven at the contract's neutral path.
    if (contract.has(`${op.method} ${neutralPath(op.path)}`)) return { included: true };
  }
  if (contract.has(`${op.method} ${op.path}`)) return { included: true };
  if (op.method === "OPTIONS" && contract.has(`GET ${op.path}`)) return { included: true };
  return { included: false, reason: "names a vendor in its path; the contract has it under a neutral word" };
}

/** Paths of the built SDK operations (their OPTIONS twins are in scope too). */
function builtSdkPaths(): ReadonlySet<string> {
  return new Set(readClientOperations().filter((op) => op.api === "SDKApi" && builtSdkOperations.has(op.operation)).map((op) => op.path));
}
