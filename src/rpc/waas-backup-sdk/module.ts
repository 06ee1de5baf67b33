import { SdkWaasBackupService, file_sigil_waas_v0_sdk_waas_backup_service } from "../../gen/sigil/waas/v0/sdk_waas_backup_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkWaasBackup } from "./handlers.js";

/** The signed-in end user's threshold-wallet backups, recovery and delegated access (SDK, session JWT). */
export const sdkWaasBackupModule: ApiModule = {
  services: [SdkWaasBackupService],
  files: [file_sigil_waas_v0_sdk_waas_backup_service],
  register: (router, deps) => registerSdkWaasBackup(router, deps),
};
