import type { ConnectRouter } from "@connectrpc/connect";
import { TokensService } from "../../gen/sigil/tokens/v0/tokens_service_pb.js";
import type { TokenRecord } from "../../db/repositories/tokens.js";
import type { Deps } from "../../domain/deps.js";
import { environmentScope } from "../../domain/tenancy/scope.js";
import * as tokens from "../../domain/tokens/service.js";
import { apiCaller } from "../context.js";
import { str, ts } from "../mappers.js";

function toToken(t: TokenRecord, rawToken = "") {
  return {
    id: t.id,
    rawToken,
    checksum: t.checksum,
    createdBy: t.createdBy
      ? { id: t.createdBy.id, email: str(t.createdBy.email), alias: str(t.createdBy.alias), firstName: str(t.createdBy.firstName), lastName: str(t.createdBy.lastName) }
      : undefined,
    active: t.active,
    createdAt: ts(t.createdAt),
    note: t.note,
    projectEnvironmentId: t.environmentId,
    projectEnvironment: { id: t.environmentId },
    lastUsedAt: ts(t.lastUsedAt),
  };
}

export function registerTokens(router: ConnectRouter, deps: Deps) {
  router.service(TokensService, {
    async createToken(req, ctx) {
      const p = apiCaller(ctx);
      const { record, rawToken } = await tokens.createToken(deps, p, environmentScope(p, req.environmentId), req.note);
      return { token: toToken(record, rawToken) };
    },
    async listTokens(req, ctx) {
      const list = await tokens.listTokens(deps, environmentScope(apiCaller(ctx), req.environmentId));
      return { tokens: list.map((t) => toToken(t)), count: list.length };
    },
    async deleteToken(req, ctx) {
      await tokens.deleteToken(deps, environmentScope(apiCaller(ctx), req.environmentId), req.tokenId);
      return {};
    },
  });
}
