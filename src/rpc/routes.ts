import type { ConnectRouter } from "@connectrpc/connect";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import type { Deps } from "../domain/deps.js";
import { InvitesService, file_sigil_organizations_v0_invites_service } from "../gen/sigil/organizations/v0/invites_service_pb.js";
import { OauthService, file_sigil_sdk_v0_oauth_service } from "../gen/sigil/sdk/v0/oauth_service_pb.js";
import { ProvidersService, file_sigil_settings_v0_providers_service } from "../gen/sigil/settings/v0/providers_service_pb.js";
import { TokensService, file_sigil_tokens_v0_tokens_service } from "../gen/sigil/tokens/v0/tokens_service_pb.js";
import { UsersService, file_sigil_users_v0_users_service } from "../gen/sigil/users/v0/users_service_pb.js";
import { WaasService, file_sigil_waas_v0_waas_service } from "../gen/sigil/waas/v0/waas_service_pb.js";
import { WalletsService, file_sigil_wallets_v0_wallets_service } from "../gen/sigil/wallets/v0/wallets_service_pb.js";
import { registerInvites } from "./invites/handlers.js";
import { registerOauth } from "./oauth/handlers.js";
import { registerProviders } from "./providers/handlers.js";
import { registerTokens } from "./tokens/handlers.js";
import { registerUsers } from "./users/handlers.js";
import { registerWaas } from "./waas/handlers.js";
import { registerWallets } from "./wallets/handlers.js";

/** Every API service, in one place: the REST gateway and reflection are built from this list. */
export const apiServices: readonly DescService[] = [
  TokensService,
  UsersService,
  WalletsService,
  ProvidersService,
  WaasService,
  InvitesService,
  OauthService,
];

/** The files that declare them (reflection serves these and their dependencies). */
export const apiFiles: readonly DescFile[] = [
  file_sigil_tokens_v0_tokens_service,
  file_sigil_users_v0_users_service,
  file_sigil_wallets_v0_wallets_service,
  file_sigil_settings_v0_providers_service,
  file_sigil_waas_v0_waas_service,
  file_sigil_organizations_v0_invites_service,
  file_sigil_sdk_v0_oauth_service,
];

export function createApiRoutes(deps: Deps) {
  return (router: ConnectRouter) => {
    registerTokens(router, deps);
    registerUsers(router, deps);
    registerWallets(router, deps);
    registerProviders(router, deps);
    registerWaas(router, deps);
    registerInvites(router, deps);
    registerOauth(router, deps);
  };
}
