import type { Queryable } from "../db.js";
import { toCredential, toSession, toUser, type CredentialRecord, type SessionRecord, type UserRecord } from "./users.js";
import { ADDITIONAL_ADDRESSES_JSON, toWallet, type WalletRecord } from "./wallets.js";

export interface UserAggregateRecord {
  user: UserRecord;
  credentials: CredentialRecord[];
  wallets: WalletRecord[];
  sessions: SessionRecord[];
}

/**
 * A user with its credentials, live wallets (with additional addresses) and latest sessions, in one round
 * trip: the User resource is read on every user operation, and four queries per read cost more in
 * latency than the JSON aggregation costs Postgres.
 */
const SELECT_AGGREGATE = `
  SELECT to_jsonb(u) AS u,
    (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.created_at, c.id), '[]')
       FROM verified_credentials c WHERE c.environment_id = u.environment_id AND c.user_id = u.id) AS credentials,
    (SELECT coalesce(jsonb_agg(to_jsonb(w) || jsonb_build_object('additional', ${ADDITIONAL_ADDRESSES_JSON}) ORDER BY w.created_at, w.id), '[]')
       FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL) AS wallets,
    (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.created_at DESC), '[]')
       FROM (SELECT * FROM sessions s WHERE s.environment_id = u.environment_id AND s.user_id = u.id
             ORDER BY s.created_at DESC LIMIT 50) s) AS sessions
  FROM users u
  WHERE u.environment_id = $1 AND u.id = $2 AND u.deleted_at IS NULL`;

export async function findUserAggregate(q: Queryable, environmentId: string, userId: string): Promise<UserAggregateRecord | null> {
  const row = await q.oneOrNone(SELECT_AGGREGATE, [environmentId, userId]);
  if (!row) return null;
  return {
    user: toUser(row.u),
    credentials: row.credentials.map(toCredential),
    wallets: row.wallets.map(toWallet),
    sessions: row.sessions.map(toSession),
  };
}
