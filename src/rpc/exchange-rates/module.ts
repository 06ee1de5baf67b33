import { ExchangeRatesService, file_sigil_exchange_rates_v0_exchange_rates_service } from "../../gen/sigil/exchange_rates/v0/exchange_rates_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerExchangeRates } from "./handlers.js";

/** Exchange rates: the configured rates (not environment-bound). */
export const exchangeRatesModule: ApiModule = {
  services: [ExchangeRatesService],
  files: [file_sigil_exchange_rates_v0_exchange_rates_service],
  register: (router, deps) => registerExchangeRates(router, deps),
};
