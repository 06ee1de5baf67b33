import { prepared, type Queryable } from "../db.js";
import { auditRowsParams, auditsWithEventsCtes, type AuditWithEvent } from "./audit.js";
import { escapeLike, isUuid } from "../text-match.js";
import { ROTATE_REFRESH, rotateRefreshParams, type LiveSession } from "./sessions.js";
import { toUserMfaDevice, type UserMfaDeviceRecord } from "./user-mfa-devices.js";
import { toCredential, toSession, toUser, type CredentialRecord, type SessionRecord, type UserRecord } from "./users.js";
import { ADDITIONAL_ADDRESSES_JSON, toWallet, type WalletRecord } from "./wallets.js";

/**
 * A user as a session's answer carries it (sign-in, refresh, renewal: the published client's SdkUser): the
 * user with its credentials, live wallets and MFA devices. The user's other sessions are not part of it: the
 * client's shape has no field for them, and a user signed in on many devices would pay for reading and
 * sending the latest 50 on every sign-in and refresh (0.7 ms of Postgres a sign-in for a user with thousands).
 */
export interface SignedInUserRecord {
  user: UserRecord;
  credentials: CredentialRecord[];
  wallets: WalletRecord[];
  mfaDevices: UserMfaDeviceRecord[];
}

/** The whole user resource (GET user and the users' own operations): with its latest 50 sessions. */
export interface UserAggregateRecord extends SignedInUserRecord {
  sessions: SessionRecord[];
}

/**
 * The columns of a user aggregate for the users row aliased `u`: the user with its credentials, live wallets
 * (with additional addresses), latest sessions and MFA devices, as JSON built by subqueries, each an index
 * lookup by (environment_id, user_id): the read of one user (GET user and every user operation). The
 * subqueries name the environment and the user by the statement's parameters $1 and $2, not through `u`:
 * with a constant the planner takes the (environment_id, user_id) index whatever its statistics say, where a
 * correlation through a CTE's row let it pick an index on environment_id alone and filter every user of the
 * environment while the tables were young (seen at 2-5 ms a sign-in before autovacuum's first ANALYZE).
 * A list page reads its children per page instead (userListStatement); test/db/user-list.test.ts holds the
 * two to the same records. Sealed OAuth tokens and TOTP secrets are left out.
 */
const SIGNED_IN_COLUMNS = `
    to_jsonb(u) AS u,
    (SELECT coalesce(jsonb_agg(to_jsonb(c) - 'oauth_access_token_sealed' - 'oauth_refresh_token_sealed' ORDER BY c.created_at, c.id), '[]')
       FROM verified_credentials c
       WHERE c.environment_id = $1 AND c.user_id = $2 AND c.deleted_at IS NULL) AS credentials,
    (SELECT coalesce(jsonb_agg(to_jsonb(w) || jsonb_build_object('additional', ${ADDITIONAL_ADDRESSES_JSON}) ORDER BY w.created_at, w.id), '[]')
       FROM wallets w WHERE w.environment_id = $1 AND w.user_id = $2 AND w.deleted_at IS NULL) AS wallets,
    (SELECT coalesce(jsonb_agg(to_jsonb(d) - 'totp_secret_sealed' ORDER BY d.created_at, d.id), '[]')
       FROM user_mfa_devices d WHERE d.environment_id = $1 AND d.user_id = $2) AS mfa_devices`;

const AGGREGATE_COLUMNS = `${SIGNED_IN_COLUMNS},
    (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.created_at DESC), '[]')
       FROM (SELECT * FROM sessions s WHERE s.environment_id = $1 AND s.user_id = $2
             ORDER BY s.created_at DESC LIMIT 50) s) AS sessions`;

function toSignedInUser(row: Record<string, any>): SignedInUserRecord {
  return {
    user: toUser(row.u),
    credentials: row.credentials.map(toCredential),
    wallets: row.wallets.map(toWallet),
    mfaDevices: row.mfa_devices.map(toUserMfaDevice),
  };
}

function toAggregate(row: Record<string, any>): UserAggregateRecord {
  return { ...toSignedInUser(row), sessions: row.sessions.map(toSession) };
}

/** A live user as a session's answer carries it (renewal after a change), or null. */
const FIND_SIGNED_IN_USER = prepared(
  "find-signed-in-user",
  `SELECT ${SIGNED_IN_COLUMNS} FROM users u WHERE u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL`,
);

export async function findSignedInUser(q: Queryable, environmentId: string, userId: string): Promise<SignedInUserRecord | null> {
  const row = await q.oneOrNone(FIND_SIGNED_IN_USER([environmentId, userId]));
  return row ? toSignedInUser(row) : null;
}

export async function findUserAggregate(q: Queryable, environmentId: string, userId: string): Promise<UserAggregateRecord | null> {
  const row = await q.oneOrNone(
    `SELECT ${AGGREGATE_COLUMNS} FROM users u WHERE u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL`,
    [environmentId, userId],
  );
  return row ? toAggregate(row) : null;
}

/** The row of a session a sign-in opens (its tokens are signed from it once it is stored). */
export interface NewSessionRow {
  id: string;
  ipAddress: string | null;
  userAgent: string | null;
  expiresAt: Date;
  scope: string;
  pendingScope: string | null;
  refreshId: string;
  /** The credential that signed the session in (its kind and id): no second factor may repeat it. */
  firstFactor: { kind: string; id: string | null };
}

/**
 * A sign-in's writes and its read of the user in one statement, so that a returning user's sign-in needs no
 * transaction around them (a statement is one): the visit (the credential used last when it is a stored one,
 * last and first visit), the new session, the audit rows with their outbox events, and the user as the
 * session's answer carries it. Null when the user is not live: then nothing is written.
 *
 * The visit is written at most once in 30 seconds per user unless the credential changes: the UPDATE locks
 * the user's row until the sign-in commits, so concurrent sign-ins of one user (a returning wallet on several
 * tabs or devices, a client retrying) would otherwise queue behind each other; a row the WHERE does not
 * match is not locked, and the user is then read as it is.
 */
const OPEN_SESSION_AND_FIND_USER = prepared(
  "open-session-and-find-user",
  `WITH visited AS (
       UPDATE users SET last_verified_credential_id = coalesce($3, last_verified_credential_id), last_visit = now(), first_visit = coalesce(first_visit, now())
       WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL
         AND (last_visit IS NULL OR last_visit < now() - interval '30 seconds'
              OR ($3::uuid IS NOT NULL AND last_verified_credential_id IS DISTINCT FROM $3::uuid))
       RETURNING *),
     u AS (
       SELECT * FROM visited
       UNION ALL
       SELECT * FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM visited)),
     opened AS (
       INSERT INTO sessions (id, environment_id, user_id, ip_address, user_agent, expires_at, scope, pending_scope, refresh_id, first_factor_kind, first_factor_id)
       SELECT $4, $1, u.id, $5, $6, $7, $8, $9, $10, $11, $12 FROM u
       RETURNING id),
     ${auditsWithEventsCtes(13, 14, 15, "EXISTS (SELECT 1 FROM opened)")}
     SELECT ${SIGNED_IN_COLUMNS}, (SELECT n FROM notified) AS notified FROM u`,
);

export async function openSessionAndFindUser(
  q: Queryable,
  environmentId: string,
  userId: string,
  visit: { credentialId: string | null },
  session: NewSessionRow,
  audits: AuditWithEvent[],
): Promise<SignedInUserRecord | null> {
  const row = await q.oneOrNone(
    OPEN_SESSION_AND_FIND_USER([
      environmentId,
      userId,
      visit.credentialId,
      session.id,
      session.ipAddress,
      session.userAgent,
      session.expiresAt,
      session.scope,
      session.pendingScope,
      session.refreshId,
      session.firstFactor.kind,
      session.firstFactor.id,
      ...auditRowsParams(audits),
    ]),
  );
  return row ? toSignedInUser(row) : null;
}

/**
 * A refresh in one statement: rotateRefresh (sessions.ts) and the user as the session's answer carries it.
 * Null when nothing was rotated (ask refreshRefusal why).
 */
const ROTATE_REFRESH_AND_FIND_USER = prepared(
  "rotate-refresh-and-find-user",
  `WITH rotated AS (${ROTATE_REFRESH})
     SELECT rotated.expires_at AS rotated_expires_at, rotated.scope AS rotated_scope, ${SIGNED_IN_COLUMNS}
     FROM rotated JOIN users u ON u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL`,
);

export async function rotateRefreshAndFindUser(
  q: Queryable,
  environmentId: string,
  userId: string,
  sessionId: string,
  r: { presented: string | null; next: string; lifetimeSeconds: number; maxAgeSeconds: number },
): Promise<{ session: LiveSession; user: SignedInUserRecord } | null> {
  const row = await q.oneOrNone(ROTATE_REFRESH_AND_FIND_USER(rotateRefreshParams(environmentId, userId, sessionId, r)));
  if (!row) return null;
  return { session: { id: sessionId, userId, expiresAt: row.rotated_expires_at, scope: row.rotated_scope ?? null }, user: toSignedInUser(row) };
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

/** SQL of the page (users rows) and of the exact count, for EXPLAIN in the benchmark and for the list statement. */
export function userListSql(environmentId: string, query: UserListQuery) {
  const cond = filterSource(query.filter);
  const from = cond.from;
  const where = `users.environment_id = $1 AND users.deleted_at IS NULL AND ${cond.sql}`;
  const order = ORDER_BY[`${query.orderBy.column}:${query.orderBy.direction}`];
  if (!order) throw new Error("order not whitelisted");
  const params = [environmentId, ...cond.params];
  const n = params.length;
  return {
    page: `SELECT users.* FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    count: `SELECT count(*)::int AS n FROM ${from} WHERE ${where}`,
    /** The count stopped after `upTo + 1` matches: as cheap as the page for a large environment. */
    boundedCount: (upTo: number) => `SELECT count(*)::int FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT ${Math.trunc(upTo) + 1}) matched`,
    order,
    params: [...params, query.limit, query.offset],
    countParams: params,
  };
}

/** The credential columns the API reads (the sealed OAuth tokens stay in the database). */
const CREDENTIAL_JSON = `json_build_object('id', c.id, 'user_id', c.user_id, 'format', c.format, 'email', c.email,
    'phone_number', c.phone_number, 'phone_country_code', c.phone_country_code, 'iso_country_code', c.iso_country_code,
    'oauth_provider', c.oauth_provider, 'oauth_account_id', c.oauth_account_id, 'oauth_username', c.oauth_username,
    'oauth_display_name', c.oauth_display_name, 'oauth_emails', c.oauth_emails, 'oauth_photos', c.oauth_photos,
    'oauth_metadata', c.oauth_metadata, 'oauth_access_token_expires_at', c.oauth_access_token_expires_at,
    'sign_in_enabled', c.sign_in_enabled, 'verified_at', c.verified_at, 'last_selected_at', c.last_selected_at)`;

const WALLET_JSON = `json_build_object('id', w.id, 'user_id', w.user_id, 'environment_id', w.environment_id,
    'credential_id', w.credential_id, 'name', w.name, 'chain', w.chain, 'address', w.address, 'provider', w.provider,
    'custody_hd_wallet_id', w.custody_hd_wallet_id, 'properties', w.properties, 'last_selected_at', w.last_selected_at,
    'pregenerated_at', w.pregenerated_at, 'claimed_at', w.claimed_at, 'created_at', w.created_at, 'updated_at', w.updated_at,
    'additional', coalesce(a.list, '[]'))`;

/**
 * The statement of a list page: the page's users are chosen first (through the index that matches the
 * order), then each child table is read once for all of them, `user_id = ANY (the page's ids)` on its
 * index led by (environment_id, user_id), and grouped by user, instead of four correlated subqueries per
 * user (about 400 subplans per page). Sessions keep one lookup per user: only the latest 50 are shown and
 * a user can have many. json (not jsonb) is built: it is only sent on, and text concatenation is cheaper.
 * `countUpTo` adds the bounded count of matches (null: no count; the caller knows it already).
 */
export function userListStatement(environmentId: string, query: UserListQuery, countUpTo: number | null) {
  const sql = userListSql(environmentId, query);
  const total = countUpTo === null ? "NULL::int" : `(${sql.boundedCount(countUpTo)})`;
  const text = `
    WITH page AS MATERIALIZED (SELECT p.*, row_number() OVER (ORDER BY ${sql.order}) AS ord FROM (${sql.page}) p),
    ids AS MATERIALIZED (SELECT coalesce(array_agg(id), '{}') AS ids FROM page),
    credentials AS (
      SELECT c.user_id, json_agg(${CREDENTIAL_JSON} ORDER BY c.created_at, c.id) AS list
      FROM verified_credentials c
      WHERE c.environment_id = $1 AND c.user_id = ANY ((SELECT ids FROM ids)::uuid[]) AND c.deleted_at IS NULL
      GROUP BY c.user_id),
    page_wallets AS MATERIALIZED (
      SELECT w.* FROM wallets w
      WHERE w.environment_id = $1 AND w.user_id = ANY ((SELECT ids FROM ids)::uuid[]) AND w.deleted_at IS NULL),
    addresses AS (
      SELECT x.wallet_id, json_agg(json_build_object('address', x.address, 'type', x.type, 'publicKey', x.public_key)
                                   ORDER BY x.created_at, x.id) AS list
      FROM wallet_additional_addresses x
      WHERE x.environment_id = $1 AND x.wallet_id = ANY ((SELECT array_agg(id) FROM page_wallets)::uuid[]) AND x.deleted_at IS NULL
      GROUP BY x.wallet_id),
    wallets_json AS (
      SELECT w.user_id, json_agg(${WALLET_JSON} ORDER BY w.created_at, w.id) AS list
      FROM page_wallets w LEFT JOIN addresses a ON a.wallet_id = w.id
      GROUP BY w.user_id),
    devices AS (
      SELECT d.user_id, json_agg(json_build_object('id', d.id, 'user_id', d.user_id, 'type', d.type, 'alias', d.alias,
                                   'is_default', d.is_default, 'created_at', d.created_at, 'verified_at', d.verified_at)
                                 ORDER BY d.created_at, d.id) AS list
      FROM user_mfa_devices d
      WHERE d.environment_id = $1 AND d.user_id = ANY ((SELECT ids FROM ids)::uuid[])
      GROUP BY d.user_id),
    rows AS (
      SELECT p.ord, to_json(p) AS u,
             coalesce(c.list, '[]') AS credentials, coalesce(w.list, '[]') AS wallets,
             coalesce(s.list, '[]') AS sessions, coalesce(d.list, '[]') AS mfa_devices
      FROM page p
      LEFT JOIN credentials c ON c.user_id = p.id
      LEFT JOIN wallets_json w ON w.user_id = p.id
      LEFT JOIN devices d ON d.user_id = p.id
      LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object('id', l.id, 'created_at', l.created_at, 'ip_address', l.ip_address,
                                          'user_agent', l.user_agent, 'revoked_at', l.revoked_at) ORDER BY l.created_at DESC) AS list
        FROM (SELECT * FROM sessions s WHERE s.environment_id = $1 AND s.user_id = p.id ORDER BY s.created_at DESC LIMIT 50) l
      ) s ON true)
    SELECT ${total} AS total, r.* FROM (SELECT 1) one LEFT JOIN rows r ON true ORDER BY r.ord`;
  return { text, params: sql.params };
}

/**
 * One page of users with their credentials, wallets, sessions and MFA devices in one statement, with the
 * number of users matching the filter counted up to `countUpTo + 1` when asked (null otherwise): callers
 * that need the exact number beyond that use countUsers.
 */
export async function listUserAggregates(
  q: Queryable,
  environmentId: string,
  query: UserListQuery,
  countUpTo: number | null,
): Promise<{ users: UserAggregateRecord[]; count: number | null }> {
  const statement = userListStatement(environmentId, query, countUpTo);
  const rows = await q.any(statement.text, statement.params);
  return { users: rows.filter((r) => r.u !== null).map(toAggregate), count: rows[0]?.total ?? null };
}

/** The exact number of users a filter matches (an index-only scan of all of them: ~10 ms per 100,000). */
export async function countUsers(q: Queryable, environmentId: string, filter: UserListQuery["filter"]): Promise<number> {
  const sql = userListSql(environmentId, { filter, orderBy: { column: "createdAt", direction: "desc" }, offset: 0, limit: 0 });
  return (await q.one(sql.count, sql.countParams)).n;
}
