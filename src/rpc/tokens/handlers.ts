import type { ConnectRouter } from "@connectrpc/connect";
import type { ListValue } from "@bufbuild/protobuf/wkt";
import { TokensService } from "../../gen/sigil/tokens/v0/tokens_service_pb.js";
import { UserTokensService } from "../../gen/sigil/tokens/v0/user_tokens_service_pb.js";
import type { TokenRecord } from "../../db/repositories/tokens.js";
import type { Deps } from "../../domain/deps.js";
import * as tokens from "../../domain/tokens/service.js";
import { str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { callerPermissions } from "./caller.js";
import { environmentOf, accountOf } from "../tenant-context.js";

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
    projectEnvironmentId: str(t.environmentId),
    projectEnvironment: t.environmentId ? { id: t.environmentId } : undefined,
    lastUsedAt: ts(t.lastUsedAt),
    permissions: t.permissions,
  };
}

/** Absent: undefined (all the caller has). The validation interceptor has already made every item a string. */
function requestedPermissions(list: ListValue | undefined): string[] | undefined {
  return list?.values.map((v) => (v.kind.case === "stringValue" ? v.kind.value : ""));
}

export function registerTokens(router: ConnectRouter, deps: Deps) {
  router.service(TokensService, {
    async createToken(req, ctx) {
      const access = environmentOf(ctx);
      const { record, rawToken } = await tokens.createToken(deps, access, callerPermissions(ctx, access.role), {
        note: req.note,
        permissions: requestedPermissions(req.permissions),
      });
      return { token: toToken(record, rawToken) };
    },
    async listTokens(req, ctx) {
      const access = environmentOf(ctx);
      const r = await tokens.listTokens(deps, access.environmentId, pageOf(req));
      return { tokens: r.tokens.map((t) => toToken(t)), count: r.count };
    },
    async deleteToken(req, ctx) {
      await tokens.deleteToken(deps, environmentOf(ctx), req.tokenId);
      return {};
    },
  });

  router.service(UserTokensService, {
    async listUserTokens(req, ctx) {
      const r = await tokens.listAccountTokens(deps, accountOf(ctx).accountId, pageOf(req));
      return { tokens: r.tokens.map((t) => toToken(t)), count: r.count };
    },
    async createUserToken(req, ctx) {
      const { record, rawToken } = await tokens.createAccountToken(deps, accountOf(ctx), { note: req.note, permissions: requestedPermissions(req.permissions) });
      return { token: toToken(record, rawToken) };
    },
    async deleteUserToken(req, ctx) {
      await tokens.deleteAccountToken(deps, accountOf(ctx), req.tokenId);
      return {};
    },
  });
}
