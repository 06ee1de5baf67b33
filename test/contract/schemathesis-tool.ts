import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Schemathesis as scripts/install-schemathesis.sh installs it: a venv of its own in .tools/schemathesis, every
 * package pinned by scripts/schemathesis-requirements.txt. The integration lane's global setup
 * (test/setup/global-setup.ts) runs the script when this installation is missing, so the fuzzing test never skips.
 */
const root = path.resolve(import.meta.dirname, "../..");
const requirements = path.join(root, "scripts/schemathesis-requirements.txt");
const venv = path.join(root, ".tools/schemathesis");

export const schemathesisBin = path.join(venv, "bin/st");

/** The stamp the script writes last: the pinned version and a digest of the pins, so a changed lock reinstalls. */
function stampPath(): string {
  const text = readFileSync(requirements);
  const version = /^schemathesis==(\S+)$/m.exec(text.toString())?.[1];
  if (!version) throw new Error(`${requirements} pins no schemathesis version`);
  return path.join(venv, `.installed-${version}-${createHash("sha256").update(text).digest("hex").slice(0, 12)}`);
}

export function schemathesisInstalled(): boolean {
  return existsSync(schemathesisBin) && existsSync(stampPath());
}
