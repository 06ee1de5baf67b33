import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { runCompat } from "./runner.js";
import { sdkMfaApi } from "./scenarios/sdk-mfa.js";

// E-mail codes of the e-mail factor go to the dev mailbox of this run's data directory, where the scenario reads them.
runCompat("MFA", sdkMfaApi, {
  dataDir: mkdtempSync(path.join(tmpdir(), "sigil-compat-mfa-")),
  verifications: DEFAULT_VERIFICATION_SETTINGS,
});
