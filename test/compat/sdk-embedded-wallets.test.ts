import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { runCompat } from "./runner.js";
import { sdkEmbeddedWalletsApi } from "./scenarios/sdk-embedded-wallets.js";

// Recovery bundles go to the dev mailbox of this run's data directory, where the scenarios read them.
runCompat("embedded wallets (SDK)", sdkEmbeddedWalletsApi, {
  dataDir: mkdtempSync(path.join(tmpdir(), "sigil-compat-embedded-wallets-")),
  verifications: DEFAULT_VERIFICATION_SETTINGS,
});
