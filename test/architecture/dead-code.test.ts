import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// knip (configured in knip.jsonc) lists unused files, exports, types and dependencies; any finding fails.
it("has no unused files, exports or dependencies (knip)", async () => {
  const knip = fileURLToPath(new URL("../../node_modules/knip/bin/knip.js", import.meta.url));
  const run = await promisify(execFile)(process.execPath, [knip, "--no-progress", "--reporter", "compact"], { cwd: root, timeout: 120_000 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, stdout: `${err.stdout ?? ""}${err.stderr ?? ""}` }),
  );
  expect(run.stdout.trim()).toBe("");
  expect(run.code).toBe(0);
});
