import { runCompat } from "./runner.js";
import { sdkWaasBackupApi } from "./scenarios/sdk-waas-backup.js";

runCompat("threshold-wallet backups (WaaS)", sdkWaasBackupApi);
