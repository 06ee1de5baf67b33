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

  it("reports a reversed import, a circle, a domain module importing an adapter, an activity doing the domain's work and a workflow importing Node code", async () => {
    const result = await cruiseSrc(path.join(root, "test/architecture/fixtures/reversed"));
    const rules = new Set(result.summary.violations.map((v) => v.rule.name));
    expect([...rules].sort()).toEqual([
      "db-is-the-bottom",
      "domain-not-adapters",
      "domain-not-transport",
      "net-is-below-domain",
      "no-circular",
      "waas-activities-are-thin",
      "workflows-are-deterministic",
    ]);
  });

  // swc (which parses for dependency-cruiser: TypeScript 7 has no compiler API) keeps no mark of type-only
  // imports, so the rule lets workflows name the activities and domain modules; here those imports must be
  // `import type`, which the workflow bundle drops, except for the workflow-safe modules below.
  const importsOf = (file: string) =>
    [...readFileSync(file, "utf8").matchAll(/^(import|export)\s+(type\s+)?[^;]*?\s+from\s+"([^"]+)"/gms)].map(([statement, , typeOnly, from]) => ({
      statement: statement.split("\n")[0]!,
      typeOnly: Boolean(typeOnly),
      from: from!,
    }));
  // Shared by workflow code and the rest (the failure codec: the workflow, the client and the room read one
  // encoding). Workflows may import them because they import nothing at run time themselves.
  const workflowSafe = ["../domain/failure-codec.js"];

  it("workflows import only @temporalio/workflow, other workflows, the workflow-safe modules and types", () => {
    const dir = path.join(root, "src/workflows");
    const wrong: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      for (const { statement, typeOnly, from } of importsOf(path.join(dir, file))) {
        if (typeOnly || from === "@temporalio/workflow" || /^\.\/[\w-]+\.js$/.test(from) || workflowSafe.includes(from)) continue;
        wrong.push(`${file}: ${statement}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the workflow-safe modules import nothing at run time", () => {
    const wrong = workflowSafe.flatMap((m) =>
      importsOf(path.join(root, "src/workflows", m.replace(/\.js$/, ".ts")))
        .filter((i) => !i.typeOnly)
        .map((i) => `${m}: ${i.statement}`),
    );
    expect(wrong).toEqual([]);
  });
});
