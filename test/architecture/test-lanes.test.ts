import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testEnv } from "../setup/env.js";
import { unitDirs, unitFiles } from "../setup/lanes.js";

/**
 * The unit lane (test/setup/lanes.ts) runs without the global setup, so its files must not reach the
 * modules that need or start servers. Checked on the imports, followed through test/ and bench/ helpers
 * (src/ modules are leaves here: what matters is that no test code wires them to a server).
 */
const root = path.resolve(import.meta.dirname, "../..");

/**
 * Modules that need the run's servers or start servers or a whole runtime of their own. (test/setup/env.ts
 * is not one: testEnv() fails at once in the unit lane, see the last test.)
 */
const serverModules = [
  "test/setup/global-setup.ts",
  "test/setup/test-database.ts",
  "test/setup/redis-server.ts",
  "test/support/app.ts",
  "test/infra/fixtures/runtime-process.ts",
  "src/runtime.ts",
  "src/infra/embedded-postgres.ts",
  "src/infra/temporal-dev-server.ts",
];

function relativeImports(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const specs = [...text.matchAll(/(?:^|\s)(?:import|export)\s(?:[^;'"]*?\sfrom\s)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gm)];
  return specs.map((m) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), (m[1] ?? m[2])!)).replace(/\.js$/, ".ts"));
}

/** Every module `file` reaches through test/ and bench/ code, with the chain that reaches it. */
function reach(file: string, chain: string[] = [], seen = new Map<string, string[]>()): Map<string, string[]> {
  for (const next of relativeImports(file)) {
    if (seen.has(next)) continue;
    seen.set(next, [...chain, file, next]);
    if (/^(test|bench)\//.test(next) && existsSync(path.join(root, next))) reach(next, [...chain, file], seen);
  }
  return seen;
}

const unitLaneFiles = () => [
  ...unitDirs.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => path.join(dir, f)),
  ),
  ...unitFiles,
];

describe("the unit lane", () => {
  it("lists only files that exist", () => {
    for (const f of [...unitDirs, ...unitFiles]) expect(existsSync(path.join(root, f)), `test/setup/lanes.ts names ${f}, which does not exist`).toBe(true);
  });

  it("reaches no module that needs or starts a server", () => {
    const found = unitLaneFiles().flatMap((file) =>
      [...reach(file)].filter(([module]) => serverModules.includes(module)).map(([, chain]) => chain.join(" → ")),
    );
    expect(found, "move these files to the integration lane (test/setup/lanes.ts)").toEqual([]);
  });

  it("is told so when it asks for the servers anyway", () => {
    expect(() => testEnv()).toThrow(/unit lane, which starts no servers.*test\/setup\/lanes\.ts/);
  });
});
