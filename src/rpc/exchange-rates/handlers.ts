import type { ConnectRouter } from "@connectrpc/connect";
import { ExchangeRatesService } from "../../gen/sigil/exchange_rates/v0/exchange_rates_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as rates from "../../domain/exchange-rates/service.js";
import { tokenCaller } from "../context.js";
import { ts } from "../mappers.js";

export function registerExchangeRates(router: ConnectRouter, deps: Deps) {
  router.service(ExchangeRatesService, {
    async listExchangeRates(_req, ctx) {
      // Not environment-bound: any token (environment or member) with settings.read reads the same table.
      tokenCaller(ctx);
      const list = await rates.listExchangeRates(deps);
      // The stored decimal string becomes the client's number (a double holds the configured precision).
      return {
        exchangeRates: list.map((r) => ({
          name: r.name,
          symbol: r.symbol,
          type: r.type,
          code: r.currency,
          value: Number(r.rate),
          source: r.source,
          updatedAt: ts(r.updatedAt),
        })),
      };
    },
  });
}
