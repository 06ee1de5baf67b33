import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readContractOperations } from "../compat/catalogue.js";

/**
 * The contract the tests read (the operations table, the service API) lives in the repository under
 * docs/spec, so a bare clone tests the same thing as a checkout beside the shared spec it came from. Where
 * that shared spec is present (../shared/spec, beside the repository), the vendored copy must be
 * byte-identical to it; elsewhere the vendored copy is the contract.
 */
const root = path.resolve(import.meta.dirname, "../..");
const vendored = path.join(root, "docs/spec");
const upstream = path.resolve(root, "../shared/spec");
const files = ["operations.md", "service-api.md"];
const refresh = `refresh it: cp ${path.join(upstream, "*.md")} ${vendored}/`;

describe("the vendored contract (docs/spec)", () => {
  it("holds the operations table and the service API, the operations parsing into method and path", () => {
    for (const f of files) expect(existsSync(path.join(vendored, f)), `docs/spec/${f} is missing`).toBe(true);
    const operations = readContractOperations(readFileSync(path.join(vendored, "operations.md"), "utf8"));
    expect(operations.length).toBeGreaterThan(100);
    for (const op of operations) {
      expect(op.method, JSON.stringify(op)).toMatch(/^(GET|POST|PUT|PATCH|DELETE|OPTIONS)$/);
      expect(op.path, JSON.stringify(op)).toMatch(/^\//);
    }
    expect(readFileSync(path.join(vendored, "service-api.md"), "utf8")).toMatch(/^#/m);
  });

  // Nothing to compare on a bare clone: the test above is then the whole check.
  it("is byte-identical to ../shared/spec where that exists beside the repository", () => {
    if (!existsSync(upstream)) return;
    const upstreamFiles = readdirSync(upstream).filter((f) => f.endsWith(".md")).sort();
    expect(upstreamFiles, `../shared/spec has other files than docs/spec: ${refresh}`).toEqual([...files].sort());
    for (const f of files) {
      const same = readFileSync(path.join(upstream, f)).equals(readFileSync(path.join(vendored, f)));
      expect(same, `docs/spec/${f} differs from ../shared/spec/${f}: ${refresh}`).toBe(true);
    }
  });
});
