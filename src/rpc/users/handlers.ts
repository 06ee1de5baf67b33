import type { ConnectRouter } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  CreateUserRequestSchema,
  UsersService,
  type BulkUserInput,
  type CreateUserOauthAccount,
  type CreateUserRequest,
} from "../../gen/sigil/users/v0/users_service_pb.js";
import type { UserFilterColumn, UserListQuery } from "../../db/repositories/user-aggregate.js";
import { badRequest } from "../../errors.js";
import type { Deps } from "../../domain/deps.js";
import { resetUserMfa } from "../../domain/users/mfa.js";
import * as users from "../../domain/users/service.js";
import { orNull, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { validateMessage } from "../validation.js";
import { toUserView } from "./mappers.js";
import { environmentOf } from "../tenant-context.js";

type OauthFields = Omit<CreateUserOauthAccount, "$typeName" | "$unknown">;
type UserFields = Omit<CreateUserRequest, "$typeName" | "$unknown" | "environmentId" | "oauthAccounts"> & { oauthAccounts: OauthFields[] };

/** CreateUserRequest (or a bulk row, which has the same fields) -> the domain's input. */
function createInput(req: UserFields): users.CreateUserInput {
  return {
    email: orNull(req.email.trim()),
    phoneNumber: orNull(req.phoneNumber),
    alias: orNull(req.alias),
    firstName: orNull(req.firstName),
    lastName: orNull(req.lastName),
    username: orNull(req.username),
    jobTitle: orNull(req.jobTitle),
    country: orNull(req.country),
    team: orNull(req.team),
    tShirtSize: orNull(req.tShirtSize),
    policiesConsent: req.policiesConsent,
    metadata: req.metadata ?? {},
    externalUserId: orNull(req.externalUserId),
    wallets: req.wallets.map((w) => ({
      publicWalletAddress: w.publicWalletAddress,
      chain: w.chain,
      walletName: w.walletName,
      walletProvider: w.walletProvider,
      additionalWalletAddresses: w.additionalWalletAddresses.map((a) => ({ address: a.address, type: a.type, publicKey: a.publicKey })),
    })),
    oauthAccounts: req.oauthAccounts.map((o) => ({
      provider: o.provider,
      accountId: o.accountId,
      emails: o.emails,
      displayName: o.displayName || undefined,
      username: o.username || undefined,
      photos: o.photos,
      profile: o.profile,
      accessToken: o.accessToken || undefined,
      refreshToken: o.refreshToken || undefined,
      accessTokenExpiresAt: o.accessTokenExpiresAt ? timestampDate(o.accessTokenExpiresAt) : undefined,
    })),
  };
}

/**
 * A bulk row is checked against CreateUserRequest's declared field rules here, row by row (the request as
 * a whole only has size limits), so that one bad row fails alone with the same message a single create gives.
 */
function bulkRow(environmentId: string, row: BulkUserInput): users.BulkRow {
  const violations = validateMessage(CreateUserRequestSchema, { ...row, environmentId } as unknown as Record<string, unknown>);
  if (violations.length)
    return {
      error: badRequest("validation_error", `invalid user: ${violations.map((v) => `${v.field} ${v.message}`).join("; ")}`, { errors: violations }),
    };
  return { input: createInput(row as unknown as UserFields) };
}

function listQuery(req: { filter?: { filterColumn: string; filterValue: string }; orderBy: string; offset: number; limit: number }): UserListQuery {
  const [column, direction] = (req.orderBy || "createdAt:desc").split(":") as [UserListQuery["orderBy"]["column"], "asc" | "desc"];
  return {
    ...pageOf(req),
    orderBy: { column, direction },
    filter: req.filter ? { column: req.filter.filterColumn as UserFilterColumn, value: req.filter.filterValue } : undefined,
  };
}

/** "" clears a text field on update; an absent field (undefined) keeps its value. */
const patchText = (v: string | undefined) => (v === undefined ? undefined : orNull(v.trim()));

export function registerUsers(router: ConnectRouter, deps: Deps) {
  router.service(UsersService, {
    async createUser(req, ctx) {
      const access = environmentOf(ctx);
      return { user: toUserView(await users.createUser(deps, access, createInput(req))) };
    },
    async getUser(req, ctx) {
      const access = environmentOf(ctx);
      return { user: toUserView(await users.getUser(deps, access, req.userId)) };
    },
    async listUsers(req, ctx) {
      const access = environmentOf(ctx);
      const page = await users.listUsers(deps, access, listQuery(req));
      return { users: page.users.map(toUserView), count: page.count };
    },
    async bulkCreateUsers(req, ctx) {
      const access = environmentOf(ctx);
      const results = await users.bulkCreateUsers(
        deps,
        access,
        req.users.map((row) => bulkRow(access.environmentId, row)),
      );
      const rows = results.map((r) => ({ index: r.index, user: r.user ? toUserView(r.user) : undefined, error: r.error }));
      return {
        results: rows,
        created: rows.flatMap((r) => (r.user ? [r.user] : [])),
        updated: [],
        failed: rows.flatMap((r) => (r.error ? [{ index: r.index, error: r.error.error, code: r.error.code }] : [])),
        total: rows.length,
      };
    },
    async updateUser(req, ctx) {
      const access = environmentOf(ctx);
      const user = await users.updateUser(deps, access, req.userId, {
        email: patchText(req.email),
        phoneNumber: patchText(req.phoneNumber),
        alias: patchText(req.alias),
        firstName: patchText(req.firstName),
        lastName: patchText(req.lastName),
        username: patchText(req.username),
        jobTitle: patchText(req.jobTitle),
        country: patchText(req.country),
        team: patchText(req.team),
        tShirtSize: patchText(req.tShirtSize),
        externalUserId: patchText(req.externalUserId),
        policiesConsent: req.policiesConsent,
        metadata: req.metadata,
      });
      return { user: toUserView(user) };
    },
    async deleteUser(req, ctx) {
      const access = environmentOf(ctx);
      await users.deleteUser(deps, access, req.userId);
      return {};
    },
    async revokeUserSessions(req, ctx) {
      const access = environmentOf(ctx);
      await users.revokeUserSessions(deps, access, req.userId);
      return {};
    },
    async resetUserMfa(req, ctx) {
      const access = environmentOf(ctx);
      await resetUserMfa(deps, access, req.userId);
      return {};
    },
    async getUserOauthAccessToken(req, ctx) {
      const access = environmentOf(ctx);
      const token = await users.getOauthAccessToken(deps, access, req.oauthAccountId);
      return { accessToken: token.accessToken, expiresAt: ts(token.expiresAt) };
    },
  });
}
