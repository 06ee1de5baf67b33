import { SdkSettingsService, file_sigil_sdk_settings_v0_sdk_settings_service } from "../../gen/sigil/sdk_settings/v0/sdk_settings_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkSettings } from "./handlers.js";

/** What a client app loads before anyone signs in: settings, networks, health, URL scans (public). */
export const sdkSettingsModule: ApiModule = {
  services: [SdkSettingsService],
  files: [file_sigil_sdk_settings_v0_sdk_settings_service],
  register: (router, deps) => registerSdkSettings(router, deps),
};
