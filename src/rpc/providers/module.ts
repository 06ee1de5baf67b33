import { ProvidersService, file_sigil_providers_v0_providers_service } from "../../gen/sigil/providers/v0/providers_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerProviders } from "./handlers.js";

/** Sign-in providers of an environment (OAuth, e-mail, SMS, wallets) and their presets. */
export const providersModule: ApiModule = {
  services: [ProvidersService],
  files: [file_sigil_providers_v0_providers_service],
  register: (router, deps) => registerProviders(router, deps),
};
