import { generateApiToken } from "../../crypto/api-token.js";
import { notFound } from "../../errors.js";
import * as tokens from "../../db/repositories/tokens.js";
import { accountMemberships } from "../../db/repositories/members.js";
import type { Queryable } from "../../db/db.js";
import { audited, recordChange, type Change } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { Actor, EnvironmentAccess } from "../tenancy/access.js";
import { dropCachedPrincipals } from "./cache.js";
import { grantedPermissions } from "./permissions.js";

type Page = { offset: number; limit: number };

/** What the audit trail keeps of a token: never the raw token or its hash. */
export function tokenAuditView(t: tokens.TokenRecord) {
  return { id: t.id, checksum: t.checksum, note: t.note, permissions: t.permissions, active: t.active, createdByMemberId: t.createdBy?.id ?? null };
}

/**
 * Creates a token bound to the environment, on behalf of the caller's member, with the requested
 * permissions (default: all the caller effectively has; never more). The raw token is returned here only.
 */
export async function createToken(
  deps: Deps,
  access: EnvironmentAccess,
  callerPermissions: readonly string[],
  input: { note: string; permissions: readonly string[] | undefined },
) {
  const permissions = grantedPermissions(input.permissions, callerPermissions);
  const { raw, hash, checksum } = generateApiToken();
  const record = await audited(deps, access, async (t, record) => {
    const created = await tokens.insertToken(t, access.environmentId, {
      organizationId: access.organizationId,
      tokenHash: hash,
      checksum,
      note: input.note,
      createdByMemberId: access.actor.memberId,
      permissions,
    });
    await record({ action: "token.created", resourceType: "token", resourceId: created.id, after: tokenAuditView(created) });
    return created;
  });
  return { record, rawToken: raw };
}

export function listTokens(deps: Deps, environmentId: string, page: Page) {
  return tokens.listTokensPage(deps.db, environmentId, page);
}

/** Deletes a token and drops its cached principal, so it stops working at once here and within a second on every replica. */
export async function deleteToken(deps: Deps, access: EnvironmentAccess, tokenId: string): Promise<void> {
  const hash = await audited(deps, access, async (t, record) => {
    const found = await tokens.lockToken(t, access.environmentId, tokenId);
    if (!found) throw notFound("token");
    const h = await tokens.deleteToken(t, access.environmentId, tokenId);
    await record({ action: "token.deleted", resourceType: "token", resourceId: tokenId, before: tokenAuditView(found) });
    return h!;
  });
  await dropCachedPrincipals(deps, [hash]);
}

/**
 * Account-level changes belong to no organization, but a member token acts in all of the account's
 * organizations: each of them gets the audit row (with the account's member there as the actor).
 */
async function recordForAccount(t: Queryable, accountId: string, actor: Actor, change: Change) {
  for (const m of await accountMemberships(t, accountId))
    await recordChange(t, { organizationId: m.organizationId, role: m.role, actor: { ...actor, memberId: m.id } }, { ...change, environmentId: null });
}

/** A member (account) token: acts for the account in every organization it belongs to. */
export async function createAccountToken(
  deps: Deps,
  account: { accountId: string; permissions: readonly string[]; actor: Actor },
  input: { note: string; permissions: readonly string[] | undefined },
) {
  const permissions = grantedPermissions(input.permissions, account.permissions);
  const { raw, hash, checksum } = generateApiToken();
  const record = await deps.db.tx(async (t) => {
    const created = await tokens.insertAccountToken(t, account.accountId, { tokenHash: hash, checksum, note: input.note, createdByMemberId: null, permissions });
    await recordForAccount(t, account.accountId, account.actor, {
      action: "member_token.created",
      resourceType: "member_token",
      resourceId: created.id,
      after: tokenAuditView(created),
    });
    return created;
  });
  return { record, rawToken: raw };
}

export function listAccountTokens(deps: Deps, accountId: string, page: Page) {
  return tokens.listAccountTokens(deps.db, accountId, page);
}

export async function deleteAccountToken(deps: Deps, account: { accountId: string; actor: Actor }, tokenId: string): Promise<void> {
  const hash = await deps.db.tx(async (t) => {
    const deleted = await tokens.deleteAccountToken(t, account.accountId, tokenId);
    if (!deleted) throw notFound("token");
    await recordForAccount(t, account.accountId, account.actor, {
      action: "member_token.deleted",
      resourceType: "member_token",
      resourceId: tokenId,
      before: tokenAuditView(deleted.record),
    });
    return deleted.hash;
  });
  await dropCachedPrincipals(deps, [hash]);
}
