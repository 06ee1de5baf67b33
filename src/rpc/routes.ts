import type { ConnectRouter } from "@connectrpc/connect";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import type { Deps } from "../domain/deps.js";
import type { ApiModule } from "./module.js";
import { exportsModule } from "./exports/module.js";
import { invitesModule } from "./invites/module.js";
import { nameServicesModule } from "./name-services/module.js";
import { oauthModule } from "./oauth/module.js";
import { providersModule } from "./providers/module.js";
import { tokensModule } from "./tokens/module.js";
import { usersModule } from "./users/module.js";
import { waasModule } from "./waas/module.js";
import { walletsModule } from "./wallets/module.js";
import { webhooksModule } from "./webhooks/module.js";
import { balancesModule } from "./balances/module.js";
import { solanaTransactionsModule } from "./solana-transactions/module.js";
import { walletTransactionsModule } from "./wallet-transactions/module.js";
import { simulationsModule } from "./simulations/module.js";
import { allowlistsModule } from "./allowlists/module.js";
import { analyticsModule } from "./analytics/module.js";
import { auditModule } from "./audit/module.js";
import { complianceModule } from "./compliance/module.js";
import { customNetworksModule } from "./custom-networks/module.js";
import { eventsModule } from "./events/module.js";
import { exchangesModule } from "./exchanges/module.js";
import { exchangeAccountsModule } from "./exchange-accounts/module.js";
import { externalJwtModule } from "./external-jwt/module.js";
import { gatesModule } from "./gates/module.js";
import { globalWalletModule } from "./global-wallet/module.js";
import { billingModule } from "./billing/module.js";
import { chainsModule } from "./chains/module.js";
import { customFieldsModule } from "./custom-fields/module.js";
import { customHostnamesModule } from "./custom-hostnames/module.js";
import { deeplinkUrlsModule } from "./deeplink-urls/module.js";
import { embeddedWalletsModule } from "./embedded-wallets/module.js";
import { environmentsModule } from "./environments/module.js";
import { exchangeRatesModule } from "./exchange-rates/module.js";
import { membersModule } from "./members/module.js";
import { organizationsModule } from "./organizations/module.js";
import { originsModule } from "./origins/module.js";
import { projectsModule } from "./projects/module.js";
import { sdkViewsModule } from "./sdk-views/module.js";
import { sdkSettingsModule } from "./sdk-settings/module.js";
import { ownAccountModule } from "./own-account/module.js";
import { ssoModule } from "./sso/module.js";
import { testAccountsModule } from "./test-accounts/module.js";
import { sessionsModule } from "./sessions/module.js";
import { walletSignInModule } from "./wallet-sign-in/module.js";
import { verificationsModule } from "./verifications/module.js";
import { chatSignInModule } from "./chat-sign-in/module.js";
import { socialSignInModule } from "./social-sign-in/module.js";
import { mfaModule } from "./mfa/module.js";
import { sdkEmbeddedWalletsModule } from "./embedded-wallets-sdk/module.js";
import { passkeysModule } from "./passkeys/module.js";
import { sdkWaasModule } from "./waas-sdk/module.js";
import { sdkWaasBackupModule } from "./waas-backup-sdk/module.js";
import { ratesModule } from "./rates/module.js";
import { rampsModule } from "./ramps/module.js";

/**
 * Every capability of the API, in one place: the REST gateway, reflection and the tenancy tests walk this list.
 * A capability has one name on every floor: proto/sigil/<name>/v0 (package sigil.<name>.v0), src/rpc/<name>
 * and, where it has them, src/domain/<name> and src/db/repositories/<name>.ts (snake_case in proto).
 */
export const apiModules: readonly ApiModule[] = [
  tokensModule,
  organizationsModule,
  membersModule,
  projectsModule,
  environmentsModule,
  invitesModule,
  usersModule,
  customFieldsModule,
  walletsModule,
  embeddedWalletsModule,
  chainsModule,
  waasModule,
  sdkWaasModule,
  sdkWaasBackupModule,
  providersModule,
  allowlistsModule,
  gatesModule,
  exchangesModule,
  exchangeAccountsModule,
  complianceModule,
  externalJwtModule,
  originsModule,
  deeplinkUrlsModule,
  sdkViewsModule,
  customHostnamesModule,
  testAccountsModule,
  exchangeRatesModule,
  billingModule,
  ssoModule,
  nameServicesModule,
  globalWalletModule,
  customNetworksModule,
  exportsModule,
  analyticsModule,
  auditModule,
  oauthModule,
  sessionsModule,
  walletSignInModule,
  verificationsModule,
  chatSignInModule,
  socialSignInModule,
  webhooksModule,
  eventsModule,
  balancesModule,
  simulationsModule,
  sdkSettingsModule,
  ownAccountModule,
  mfaModule,
  sdkEmbeddedWalletsModule,
  passkeysModule,
  ratesModule,
  rampsModule,
  solanaTransactionsModule,
  walletTransactionsModule,
];

export const apiServices: readonly DescService[] = apiModules.flatMap((m) => m.services);

/** The files that declare them (reflection serves these and their dependencies). */
export const apiFiles: readonly DescFile[] = apiModules.flatMap((m) => m.files);

export function createApiRoutes(deps: Deps) {
  return (router: ConnectRouter) => {
    for (const m of apiModules) m.register(router, deps);
  };
}
