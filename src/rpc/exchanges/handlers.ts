import type { ConnectRouter } from "@connectrpc/connect";
import { ExchangesService } from "../../gen/sigil/exchanges/v0/exchanges_service_pb.js";
import type { ExchangeRecord } from "../../db/repositories/exchanges.js";
import type { Deps } from "../../domain/deps.js";
import * as exchanges from "../../domain/exchanges/service.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

/** The credentials are write-only: only the masked hint of the API key is shown. */
function toExchange(e: ExchangeRecord) {
  return {
    id: e.id,
    exchange: e.exchange,
    displayName: str(e.displayName),
    apiBaseUrl: str(e.apiBaseUrl),
    apiKeyHint: str(e.apiKeyHint),
    socialProvider: str(e.socialProvider),
    onRampProvider: str(e.onRampProvider),
    hasPassphrase: e.passphraseSealed !== null,
    enabledAt: ts(e.enabledAt),
    projectEnvironmentId: e.environmentId,
    createdAt: ts(e.createdAt),
    updatedAt: ts(e.updatedAt),
  };
}

export function registerExchanges(router: ConnectRouter, deps: Deps) {
  router.service(ExchangesService, {
    async listExchanges(req, ctx) {
      const access = environmentOf(ctx);
      const { exchanges: list, count } = await exchanges.listExchanges(deps, access, pageOf(req));
      return { exchanges: list.map(toExchange), count };
    },
    async createExchange(req, ctx) {
      const access = environmentOf(ctx);
      const created = await exchanges.createExchange(deps, access, {
        exchange: req.exchange,
        apiKey: orNull(req.apiKey),
        apiSecret: orNull(req.apiSecret),
        passphrase: orNull(req.passphrase),
        displayName: orNull(req.displayName),
        apiBaseUrl: orNull(req.apiBaseUrl),
        socialProvider: orNull(req.socialProvider),
        onRampProvider: orNull(req.onRampProvider),
      });
      return { exchange: toExchange(created) };
    },
    async getExchange(req, ctx) {
      const access = environmentOf(ctx);
      return { exchange: toExchange(await exchanges.getExchange(deps, access, req.exchangeId)) };
    },
    async deleteExchange(req, ctx) {
      const access = environmentOf(ctx);
      await exchanges.deleteExchange(deps, access, req.exchangeId);
      return {};
    },
    async enableExchange(req, ctx) {
      const access = environmentOf(ctx);
      return { exchange: toExchange(await exchanges.setExchangeEnabled(deps, access, req.exchangeId, true)) };
    },
    async disableExchange(req, ctx) {
      const access = environmentOf(ctx);
      return { exchange: toExchange(await exchanges.setExchangeEnabled(deps, access, req.exchangeId, false)) };
    },
  });
}
