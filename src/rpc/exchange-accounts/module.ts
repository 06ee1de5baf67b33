import { SdkExchangeAccountsService, file_sigil_exchange_accounts_v0_sdk_exchange_accounts_service } from "../../gen/sigil/exchange_accounts/v0/sdk_exchange_accounts_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerSdkExchangeAccounts } from "./handlers.js";

/** The signed-in user's accounts at the environment's exchanges (link, accounts, transfers) and the exchange on-ramp. */
export const exchangeAccountsModule: ApiModule = {
  services: [SdkExchangeAccountsService],
  files: [file_sigil_exchange_accounts_v0_sdk_exchange_accounts_service],
  register: registerSdkExchangeAccounts,
};
