import type { Queryable } from "../db.js";
import { escapeLike, isUuid } from "../text-match.js";
import { toUserMfaDevice, type UserMfaDeviceRecord } from "./user-mfa-devices.js";
import { toCredential, toSession, toUser, type CredentialRecord, type SessionRecord, type UserRecord } from "./users.js";
import { ADDITIONAL_ADDRESSES_JSON, toWallet, type WalletRecord } from "./wallets.js";

export interface UserAggregateRecord {
  user: UserRecord;
  credentials: CredentialRecord[];
  wallets: WalletRecord[];
  sessions: SessionRecord[];
  mfaDevices: UserMfaDeviceRecord[];
}

/**
 * The columns of a user aggregate for the users row aliased `u`: the user with its credentials, live wallets
 * (with additional addresses), latest sessions and MFA devices, as JSON built by correlated subqueries. The User resource
 * is read on every user operation and a list page reads 100 of them: one statement per page (no N+1), and
 * each subquery is an index lookup by (environment_id, user_id). Sealed OAuth tokens are left out.
 */
const AGGREGATE_COLUMNS = `
    to_jsonb(u) AS u,
    (SELECT coalesce(jsonb_agg(to_jsonb(c) - 'oauth_access_token_sealed' - 'oauth_refresh_token_sealed' ORDER BY c.created_at, c.id), '[]')
       FROM verified_credentials c
       WHERE c.environment_id = u.environment_id AND c.user_id = u.id AND c.deleted_at IS NULL) AS credentials,
    (SELECT coalesce(jsonb_agg(to_jsonb(w) || jsonb_build_object('additional', ${ADDITIONAL_ADDRESSES_JSON}) ORDER BY w.created_at, w.id), '[]')
       FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL) AS wallets,
    (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.created_at DESC), '[]')
       FROM (SELECT * FROM sessions s WHERE s.environment_id = u.environment_id AND s.user_id = u.id
             ORDER BY s.created_at DESC LIMIT 50) s) AS sessions,
    (SELECT coalesce(jsonb_agg(to_jsonb(d) ORDER BY d.created_at, d.id), '[]')
       FROM user_mfa_devices d WHERE d.environment_id = u.environment_id AND d.user_id = u.id) AS mfa_devices`;

function toAggregate(row: Record<string, any>): UserAggregateRecord {
  return {
    user: toUser(row.u),
    credentials: row.credentials.map(toCredential),
    wallets: row.wallets.map(toWallet),
    sessions: row.sessions.map(toSession),
    mfaDevices: row.mfa_devices.map(toUserMfaDevice),
  };
}

export async function findUserAggregate(q: Queryable, environmentId: string, userId: string): Promise<UserAggregateRecord | null> {
  const row = await q.oneOrNone(
    `SELECT ${AGGREGATE_COLUMNS} FROM users u WHERE u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL`,
    [environmentId, userId],
  );
  return row ? toAggregate(row) : null;
}

/** Filter columns of the user list: API name -> how it matches. */
export type UserFilterColumn =
  | "id"
  | "email"
  | "phoneNumber"
  | "alias"
  | "firstName"
  | "lastName"
  | "username"
  | "externalUserId"
  | "walletPublicKey"
  | "all";

export interface UserListQuery {
  filter?: { column: UserFilterColumn; value: string };
  orderBy: { column: "createdAt" | "updatedAt" | "email"; direction: "asc" | "desc" };
  offset: number;
  limit: number;
}

/** Case-insensitive prefix matches: the expression of an index in 004_users.sql, compared with LIKE 'x%'. */
const PREFIX_EXPRESSIONS: Partial<Record<UserFilterColumn, string>> = {
  email: "lower(email)",
  alias: "lower(alias)",
  firstName: "lower(first_name)",
  lastName: "lower(last_name)",
  username: "lower(username)",
};

/** ORDER BY per whitelisted column and direction; the id tie-break keeps pages stable (index order). */
const ORDER_BY: Record<string, string> = {
  "createdAt:desc": "created_at DESC, id",
  "createdAt:asc": "created_at, id DESC",
  "updatedAt:desc": "updated_at DESC, id",
  "updatedAt:asc": "updated_at, id DESC",
  "email:asc": "lower(email), id",
  "email:desc": "lower(email) DESC, id DESC",
};

/**
 * The rows a filter selects: a FROM clause and a condition over the users rows, with parameters from $2.
 * Column filters are `environment_id = $1 AND <indexed expression> LIKE 'prefix%'` on their own index. The
 * filters that search several places (`all`, `walletPublicKey`) collect the matching ids through one index
 * per place (a UNION), then read each user by primary key (the OFFSET 0 fence keeps the planner from
 * turning that into a scan of the whole environment).
 */
function filterSource(filter: UserListQuery["filter"]): { from: string; sql: string; params: unknown[] } {
  const plain = (sql: string, params: unknown[]) => ({ from: "users", sql, params });
  const byIds = (idsSql: string, params: unknown[]) => ({
    from: `(SELECT DISTINCT matched_id FROM (${idsSql}) arms (matched_id)) m
           CROSS JOIN LATERAL (SELECT * FROM users x WHERE x.id = m.matched_id OFFSET 0) users`,
    sql: "TRUE",
    params,
  });
  if (!filter) return plain("TRUE", []);
  const { column, value } = filter;
  const prefix = `${escapeLike(value.toLowerCase())}%`;
  const live = "environment_id = $1 AND deleted_at IS NULL";
  const walletArm = `SELECT user_id FROM wallets WHERE ${live} AND lower(address) LIKE $2`;
  switch (column) {
    case "id":
      // Not a UUID: matches nothing (rather than a cast error).
      return isUuid(value.toLowerCase()) ? plain("id = $2::uuid", [value.toLowerCase()]) : plain("FALSE", []);
    case "externalUserId":
      return plain("external_user_id = $2", [value]);
    case "phoneNumber":
      return plain("phone_number LIKE $2", [`${escapeLike(value)}%`]);
    case "walletPublicKey":
      return byIds(walletArm, [prefix]);
    case "all": {
      const arms = [
        ...Object.values(PREFIX_EXPRESSIONS).map((e) => `SELECT id FROM users WHERE ${live} AND ${e} LIKE $2`),
        `SELECT id FROM users WHERE ${live} AND phone_number LIKE $3`,
        `SELECT id FROM users WHERE ${live} AND external_user_id = $4`,
        walletArm,
      ];
      return byIds(arms.join(" UNION ALL "), [prefix, `${escapeLike(value)}%`, value]);
    }
    default:
      return plain(`${PREFIX_EXPRESSIONS[column]} LIKE $2`, [prefix]);
  }
}

/** SQL of the page (ids only) and of the count, for EXPLAIN in the benchmark and for listUserAggregates. */
export function userListSql(environmentId: string, query: UserListQuery) {
  const cond = filterSource(query.filter);
  const where = `users.environment_id = $1 AND users.deleted_at IS NULL AND ${cond.sql}`;
  const order = ORDER_BY[`${query.orderBy.column}:${query.orderBy.direction}`];
  if (!order) throw new Error("order not whitelisted");
  const params = [environmentId, ...cond.params];
  const n = params.length;
  return {
    page: `SELECT users.* FROM ${cond.from} WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    count: `SELECT count(*)::int AS n FROM ${cond.from} WHERE ${where}`,
    order,
    params: [...params, query.limit, query.offset],
  };
}

/**
 * One page of users with their credentials, wallets and sessions, and the number of users matching the
 * filter, in one statement: the page is chosen through an index that matches the order, then each of its
 * users is aggregated.
 */
export async function listUserAggregates(
  q: Queryable,
  environmentId: string,
  query: UserListQuery,
): Promise<{ users: UserAggregateRecord[]; count: number }> {
  const sql = userListSql(environmentId, query);
  const rows = await q.any(
    `WITH page AS MATERIALIZED (${sql.page})
     SELECT (${sql.count}) AS total, p.* FROM (SELECT 1) one
     LEFT JOIN LATERAL (SELECT ${AGGREGATE_COLUMNS}, row_number() OVER (ORDER BY ${sql.order}) AS ord FROM page u) p ON true
     ORDER BY p.ord`,
    sql.params,
  );
  const count = rows[0]?.total ?? 0;
  return { users: rows.filter((r) => r.u !== null).map(toAggregate), count };
}
