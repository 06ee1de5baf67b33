import type { ConnectRouter } from "@connectrpc/connect";
import { currencyRates } from "../../domain/rates/service.js";
import type { Deps } from "../../domain/deps.js";
import { SdkRatesService, file_sigil_rates_v0_sdk_rates_service } from "../../gen/sigil/rates/v0/sdk_rates_service_pb.js";
import type { ApiModule } from "../module.js";
import { publicEnvironmentOf } from "../tenant-context.js";

function register(router: ConnectRouter, deps: Deps) {
  router.service(SdkRatesService, {
    // The environment is checked by the tenancy interceptor; it may have a price source of its own.
    getCurrencyExchangeRates: async (_req, ctx) => ({ exchangeRates: await currencyRates(deps, publicEnvironmentOf(ctx)) }),
  });
}

/** Exchange rates for client apps: the configured table, or the price source's live rates. */
export const ratesModule: ApiModule = {
  services: [SdkRatesService],
  files: [file_sigil_rates_v0_sdk_rates_service],
  register,
};
