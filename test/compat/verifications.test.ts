import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { runCompat } from "./runner.js";
import { verificationsApi } from "./scenarios/verifications.js";

// Codes go to the dev mailbox and SMS outbox of a data directory of this run (SIGIL_SMTP_URL and
// SIGIL_SMS_API_URL unset), where the scenarios read them.
runCompat("e-mail and SMS codes", verificationsApi, {
  dataDir: mkdtempSync(path.join(tmpdir(), "sigil-compat-codes-")),
  verifications: DEFAULT_VERIFICATION_SETTINGS,
});
