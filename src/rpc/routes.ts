import type { ConnectRouter } from "@connectrpc/connect";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import type { Deps } from "../domain/deps.js";
import type { ApiModule } from "./module.js";
import { environmentSettingsModule } from "./environment-settings/module.js";
import { exportsModule } from "./exports/module.js";
import { invitesModule } from "./invites/module.js";
import { nameServicesModule } from "./name-services/module.js";
import { oauthModule } from "./oauth/module.js";
import { providersModule } from "./providers/module.js";
import { tenancyModule } from "./tenancy/module.js";
import { tokensModule } from "./tokens/module.js";
import { usersModule } from "./users/module.js";
import { waasModule } from "./waas/module.js";
import { walletsModule } from "./wallets/module.js";
import { webhooksModule } from "./webhooks/module.js";
import { balancesModule } from "./balances/module.js";
import { allowlistsModule } from "./allowlists/module.js";
import { analyticsModule } from "./analytics/module.js";
import { auditModule } from "./audit/module.js";
import { complianceModule } from "./compliance/module.js";
import { customNetworksModule } from "./custom-networks/module.js";
import { eventsModule } from "./events/module.js";
import { exchangesModule } from "./exchanges/module.js";
import { externalJwtModule } from "./external-jwt/module.js";
import { gatesModule } from "./gates/module.js";
import { globalWalletModule } from "./global-wallet/module.js";

/** Every area of the API, in one place: the REST gateway, reflection and the tenancy tests walk this list. */
export const apiModules: readonly ApiModule[] = [
  tokensModule,
  tenancyModule,
  invitesModule,
  usersModule,
  walletsModule,
  waasModule,
  providersModule,
  allowlistsModule,
  gatesModule,
  exchangesModule,
  complianceModule,
  externalJwtModule,
  environmentSettingsModule,
  nameServicesModule,
  globalWalletModule,
  customNetworksModule,
  exportsModule,
  analyticsModule,
  auditModule,
  oauthModule,
  webhooksModule,
  eventsModule,
  balancesModule,
];

export const apiServices: readonly DescService[] = apiModules.flatMap((m) => m.services);

/** The files that declare them (reflection serves these and their dependencies). */
export const apiFiles: readonly DescFile[] = apiModules.flatMap((m) => m.files);

export function createApiRoutes(deps: Deps) {
  return (router: ConnectRouter) => {
    for (const m of apiModules) m.register(router, deps);
  };
}
