import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const say = (line: string) => process.stderr.write(`[global-setup] ${line}\n`);

/**
 * The test run enforces declared errors (src/rpc/undeclared-errors.ts): every app, test app and spawned
 * server of the run answers an error its RPC does not declare with 500 undeclared_error and appends it to
 * one file. Set in process.env here, in vitest's main process before any worker forks, so that workers and
 * the servers they spawn inherit it; testConfig() (test/support/app.ts) reads it from there.
 *
 * A run may choose otherwise: `SIGIL_UNDECLARED_ERRORS=warn SIGIL_UNDECLARED_ERRORS_LOG=<file> npx vitest run`
 * records without failing, for `npm run errors:declare` (CONTRIBUTING.md).
 */
export function enforceDeclaredErrors(): { check: () => void } {
  process.env.SIGIL_UNDECLARED_ERRORS ??= "enforce";
  const enforce = process.env.SIGIL_UNDECLARED_ERRORS === "enforce";
  if (!process.env.SIGIL_UNDECLARED_ERRORS_LOG) {
    process.env.SIGIL_UNDECLARED_ERRORS_LOG = path.join(mkdtempSync(path.join(tmpdir(), "sigil-undeclared-")), "undeclared-errors.jsonl");
  }
  const file = process.env.SIGIL_UNDECLARED_ERRORS_LOG;
  if (enforce) writeFileSync(file, "");
  return {
    /**
     * Fails the run when any undeclared error was answered, even one whose test expected the 500 or caught
     * it. vitest only logs a teardown's throw ("error during close") and still exits 0, so the exit code is
     * set here; the throw prints the list.
     */
    check() {
      if (!enforce || !existsSync(file)) return;
      const lines = [...new Set(readFileSync(file, "utf8").split("\n").filter(Boolean))];
      if (!lines.length) return;
      say(`undeclared errors (${file}):\n${lines.join("\n")}`);
      process.exitCode = 1;
      throw new Error(
        `${lines.length} error(s) answered by an RPC that does not declare them (listed above): declare them in the RPC's errors option, ` +
          "or record and fill them with `npm run errors:declare` (CONTRIBUTING.md)",
      );
    },
  };
}
