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

/** Every area of the API, in one place: the REST gateway, reflection and the tenancy tests walk this list. */
export const apiModules: readonly ApiModule[] = [
  tokensModule,
  tenancyModule,
  invitesModule,
  usersModule,
  walletsModule,
  waasModule,
  providersModule,
  environmentSettingsModule,
  nameServicesModule,
  exportsModule,
  oauthModule,
  webhooksModule,
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
