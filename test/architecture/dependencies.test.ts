import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

// The layer rules live in .dependency-cruiser.cjs (docs/design.md, "Layers"); this runs them in `npm test`.
const root = fileURLToPath(new URL("../..", import.meta.url));

async function cruiseSrc(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(path.join(root, ".dependency-cruiser.cjs"));
  const tsConfig = extractTSConfig(path.join(root, "tsconfig.json"));
  // baseDir: paths are read and reported relative to it, so the rules' "^src/" patterns match there too.
  const { output } = await cruise(["src"], { ...options, baseDir, validate: true, tsConfig: { fileName: path.join(root, "tsconfig.json") } }, undefined, {
    tsConfig,
  });
  return output as ICruiseResult;
}

const describeViolation = (v: IViolation) =>
  `${v.rule.name}: ${v.from} → ${v.to}${v.cycle?.length ? ` (circle: ${[v.from, ...v.cycle.map((c) => c.name)].join(" → ")})` : ""}`;

describe("layers point one way", () => {
  it("src/ breaks none of the rules in .dependency-cruiser.cjs", async () => {
    const result = await cruiseSrc(root);
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
  });

  it("reports a reversed import, a circle and a workflow importing Node code", async () => {
    const result = await cruiseSrc(path.join(root, "test/architecture/fixtures/reversed"));
    const rules = new Set(result.summary.violations.map((v) => v.rule.name));
    expect([...rules].sort()).toEqual(["db-is-the-bottom", "domain-not-transport", "no-circular", "workflows-are-deterministic"]);
  });

  // swc (which parses for dependency-cruiser: TypeScript 7 has no compiler API) keeps no mark of type-only
  // imports, so the rule lets workflows name the activities and domain modules; here those imports must be
  // `import type`, which the workflow bundle drops.
  it("workflows import only @temporalio/workflow, other workflows and types", () => {
    const dir = path.join(root, "src/workflows");
    const wrong: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(path.join(dir, file), "utf8");
      for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?\s+from\s+"([^"]+)"/gms)) {
        const [statement, , typeOnly, from] = m;
        if (typeOnly || from === "@temporalio/workflow" || /^\.\/[\w-]+\.js$/.test(from!)) continue;
        wrong.push(`${file}: ${statement.split("\n")[0]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
