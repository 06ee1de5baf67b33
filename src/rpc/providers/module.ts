import type { ConnectRouter } from "@connectrpc/connect";
import { ProvidersService, file_sigil_settings_v0_providers_service } from "../../gen/sigil/settings/v0/providers_service_pb.js";
import { AllowlistsService, file_sigil_settings_v0_allowlists_service } from "../../gen/sigil/settings/v0/allowlists_service_pb.js";
import { GatesService, file_sigil_settings_v0_gates_service } from "../../gen/sigil/settings/v0/gates_service_pb.js";
import { ExchangesService, file_sigil_settings_v0_exchanges_service } from "../../gen/sigil/settings/v0/exchanges_service_pb.js";
import { ComplianceService, file_sigil_settings_v0_compliance_service } from "../../gen/sigil/settings/v0/compliance_service_pb.js";
import { ExternalJwtService, file_sigil_settings_v0_external_jwt_service } from "../../gen/sigil/settings/v0/external_jwt_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { registerAllowlists } from "./allowlists.js";
import { registerExchanges } from "./exchanges.js";
import { registerExternalJwt } from "./external-jwt.js";
import { registerGates } from "./gates.js";
import { registerProviders } from "./handlers.js";

/** Providers and sign-in settings: providers, allowlists, gates, exchanges, compliance, external JWTs. */
export const providersModule: ApiModule = {
  services: [ProvidersService, AllowlistsService, GatesService, ExchangesService, ComplianceService, ExternalJwtService],
  files: [
    file_sigil_settings_v0_providers_service,
    file_sigil_settings_v0_allowlists_service,
    file_sigil_settings_v0_gates_service,
    file_sigil_settings_v0_exchanges_service,
    file_sigil_settings_v0_compliance_service,
    file_sigil_settings_v0_external_jwt_service,
  ],
  register(router: ConnectRouter, deps: Deps) {
    registerProviders(router, deps);
    registerAllowlists(router, deps);
    registerGates(router, deps);
    registerExchanges(router, deps);
    registerExternalJwt(router, deps);
  },
};
