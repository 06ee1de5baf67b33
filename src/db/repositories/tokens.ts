import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";
// The principal shapes are the authentication interceptor's; this lookup is what fills them.

export interface TokenRecord {
  id: string;
  /** Null for member (account) tokens, which belong to no organization or environment. */
  organizationId: string | null;
  environmentId: string | null;
  accountId: string | null;
  checksum: string;
  note: string;
  active: boolean;
  permissions: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  createdBy: { id: string; email: string | null; alias: string | null; firstName: string | null; lastName: string | null } | null;
}

const SELECT_TOKEN = `
  SELECT t.*, m.email AS m_email, m.alias AS m_alias, m.first_name AS m_first_name, m.last_name AS m_last_name,
         a.email AS a_email, a.alias AS a_alias, a.first_name AS a_first_name, a.last_name AS a_last_name
  FROM api_tokens t LEFT JOIN members m ON m.id = t.created_by_member_id LEFT JOIN accounts a ON a.id = t.account_id`;

export async function insertToken(
  q: Queryable,
  environmentId: string,
  t: { organizationId: string; tokenHash: Buffer; checksum: string; note: string; createdByMemberId: string | null; permissions: string[] },
): Promise<TokenRecord> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO api_tokens (id, organization_id, environment_id, token_hash, checksum, note, created_by_member_id, permissions)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, t.organizationId, environmentId, t.tokenHash, t.checksum, t.note, t.createdByMemberId, t.permissions],
  );
  const row = await q.one(`${SELECT_TOKEN} WHERE t.environment_id = $1 AND t.id = $2`, [environmentId, id]);
  return toToken(row);
}

/** A member (account) token: bound to the account, not to an environment. */
export async function insertAccountToken(
  q: Queryable,
  accountId: string,
  t: { tokenHash: Buffer; checksum: string; note: string; createdByMemberId: string | null; permissions: string[] },
): Promise<TokenRecord> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO api_tokens (id, account_id, token_hash, checksum, note, created_by_member_id, permissions)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, accountId, t.tokenHash, t.checksum, t.note, t.createdByMemberId, t.permissions],
  );
  return toToken(await q.one(`${SELECT_TOKEN} WHERE t.account_id = $1 AND t.id = $2`, [accountId, id]));
}

export async function listTokens(q: Queryable, environmentId: string): Promise<TokenRecord[]> {
  const rows = await q.any(`${SELECT_TOKEN} WHERE t.environment_id = $1 AND t.deleted_at IS NULL ORDER BY t.created_at DESC`, [
    environmentId,
  ]);
  return rows.map(toToken);
}

export async function listTokensPage(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number },
): Promise<{ tokens: TokenRecord[]; count: number }> {
  const rows = await q.any(
    `${SELECT_TOKEN} WHERE t.environment_id = $1 AND t.deleted_at IS NULL ORDER BY t.created_at DESC, t.id LIMIT $2 OFFSET $3`,
    [environmentId, page.limit, page.offset],
  );
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM api_tokens WHERE environment_id = $1 AND deleted_at IS NULL", [
    environmentId,
  ]);
  return { tokens: rows.map(toToken), count: n };
}

/** The member (account) tokens of an account. */
export async function listAccountTokens(
  q: Queryable,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<{ tokens: TokenRecord[]; count: number }> {
  const rows = await q.any(
    `${SELECT_TOKEN} WHERE t.account_id = $1 AND t.deleted_at IS NULL ORDER BY t.created_at DESC, t.id LIMIT $2 OFFSET $3`,
    [accountId, page.limit, page.offset],
  );
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM api_tokens WHERE account_id = $1 AND deleted_at IS NULL", [
    accountId,
  ]);
  return { tokens: rows.map(toToken), count: n };
}

/** Soft-deletes an account's token; returns its hash so that caches can be invalidated, or null when absent. */
export async function deleteAccountToken(q: Queryable, accountId: string, tokenId: string): Promise<{ hash: Buffer; record: TokenRecord } | null> {
  const row = await q.oneOrNone(
    `UPDATE api_tokens SET deleted_at = now(), active = false
     WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`,
    [accountId, tokenId],
  );
  if (!row) return null;
  const full = await q.one(`${SELECT_TOKEN} WHERE t.account_id = $1 AND t.id = $2`, [accountId, tokenId]);
  return { hash: full.token_hash as Buffer, record: toToken(full) };
}

/** One environment token (with its hash, for cache invalidation), locked; null when absent or deleted. */
export async function lockToken(q: Queryable, environmentId: string, tokenId: string): Promise<TokenRecord | null> {
  const row = await q.oneOrNone(`${SELECT_TOKEN} WHERE t.environment_id = $1 AND t.id = $2 AND t.deleted_at IS NULL FOR UPDATE OF t`, [
    environmentId,
    tokenId,
  ]);
  return row ? toToken(row) : null;
}

/** Soft-deletes the token; returns its hash so that caches can be invalidated, or null when absent. */
export async function deleteToken(q: Queryable, environmentId: string, tokenId: string): Promise<Buffer | null> {
  const row = await q.oneOrNone(
    `UPDATE api_tokens SET deleted_at = now(), active = false
     WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING token_hash`,
    [environmentId, tokenId],
  );
  return row ? (row.token_hash as Buffer) : null;
}

/** What an environment (API) token grants, as found by its hash (findPrincipalByTokenHash). */
export interface ApiTokenPrincipal {
  kind: "api_token";
  tokenId: string;
  /** The environment the token is bound to, and the project and organization that own it. */
  environmentId: string;
  projectId: string;
  organizationId: string;
  environmentName: "live" | "sandbox";
  /** The member on whose behalf the token acts (its creator), and that member's role. */
  memberId: string | null;
  role: string | null;
  permissions: readonly string[];
}

/**
 * A member (account) API token: not bound to an environment. It acts for its account in every organization
 * the account is a member of, with at most the permissions of the account's role there
 * (the tenancy interceptor, src/rpc/interceptors/tenancy.ts, resolves that per call).
 */
export interface AccountTokenPrincipal {
  kind: "account_token";
  tokenId: string;
  accountId: string;
  permissions: readonly string[];
}

export type TokenPrincipal = ApiTokenPrincipal | AccountTokenPrincipal;

/**
 * The one lookup that is not tenant-scoped, because it establishes the tenant: the hash is the credential.
 * Only active, undeleted tokens are found. Environment tokens carry their environment's project and
 * organization; account (member) tokens carry their account.
 */
export async function findPrincipalByTokenHash(q: Queryable, tokenHash: Buffer): Promise<TokenPrincipal | null> {
  const row = await q.oneOrNone(
    `SELECT t.id, t.environment_id, e.project_id, e.name AS environment_name, t.organization_id, t.created_by_member_id,
            m.role, t.permissions, t.account_id
     FROM api_tokens t LEFT JOIN environments e ON e.id = t.environment_id
       LEFT JOIN members m ON m.id = t.created_by_member_id AND m.organization_id = t.organization_id
     WHERE t.token_hash = $1 AND t.active AND t.deleted_at IS NULL`,
    [tokenHash],
  );
  if (!row) return null;
  if (row.account_id) return { kind: "account_token", tokenId: row.id, accountId: row.account_id, permissions: row.permissions };
  return {
    kind: "api_token",
    tokenId: row.id,
    environmentId: row.environment_id,
    projectId: row.project_id,
    organizationId: row.organization_id,
    environmentName: row.environment_name,
    memberId: row.created_by_member_id,
    role: row.role,
    permissions: row.permissions,
  };
}

/** Records use at most once a minute per token, so authentication stays a read on the hot path. */
export async function touchTokenLastUsed(q: Queryable, tokenId: string): Promise<void> {
  await q.none(
    `UPDATE api_tokens SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [tokenId],
  );
}

function toToken(r: Record<string, any>): TokenRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    environmentId: r.environment_id,
    accountId: r.account_id,
    checksum: r.checksum,
    note: r.note,
    active: r.active,
    permissions: r.permissions,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    createdBy: r.created_by_member_id
      ? { id: r.created_by_member_id, email: r.m_email, alias: r.m_alias, firstName: r.m_first_name, lastName: r.m_last_name }
      : // A member (account) token is created by its account.
        r.account_id
        ? { id: r.account_id, email: r.a_email, alias: r.a_alias, firstName: r.a_first_name, lastName: r.a_last_name }
        : null,
  };
}
