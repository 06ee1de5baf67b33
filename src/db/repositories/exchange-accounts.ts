import type { Queryable } from "../db.js";
import { toExchange, type ExchangeRecord } from "./exchanges.js";

/** A user's link to their exchange account: the exchange's tokens, sealed (src/crypto/seal.ts). */
export interface ExchangeLinkRecord {
  id: string;
  environmentId: string;
  exchangeId: string;
  userId: string;
  accessTokenSealed: string;
  refreshTokenSealed: string | null;
  expiresAt: Date | null;
  scope: string | null;
}

const toLink = (r: Record<string, any>): ExchangeLinkRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  exchangeId: r.exchange_id,
  userId: r.user_id,
  accessTokenSealed: r.access_token_sealed,
  refreshTokenSealed: r.refresh_token_sealed,
  expiresAt: r.expires_at,
  scope: r.scope,
});

/** The environment's connection of this exchange kind (enabled or not), or null. */
export async function findExchangeByKind(q: Queryable, environmentId: string, exchange: string): Promise<ExchangeRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM exchanges WHERE environment_id = $1 AND exchange = $2", [environmentId, exchange]);
  return row ? toExchange(row) : null;
}

/** The environment's on-ramp exchange: its first enabled connection (by creation) naming an on-ramp provider. */
export async function findOnrampExchange(q: Queryable, environmentId: string): Promise<ExchangeRecord | null> {
  const row = await q.oneOrNone(
    `SELECT * FROM exchanges WHERE environment_id = $1 AND enabled_at IS NOT NULL AND on_ramp_provider IS NOT NULL
     ORDER BY created_at, id LIMIT 1`,
    [environmentId],
  );
  return row ? toExchange(row) : null;
}

export async function findLink(q: Queryable, environmentId: string, exchangeId: string, userId: string): Promise<ExchangeLinkRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM exchange_account_links WHERE environment_id = $1 AND exchange_id = $2 AND user_id = $3", [
    environmentId,
    exchangeId,
    userId,
  ]);
  return row ? toLink(row) : null;
}

/** The user's link, locked until the transaction ends (a concurrent relink waits), or null. */
export async function lockLink(q: Queryable, environmentId: string, exchangeId: string, userId: string): Promise<ExchangeLinkRecord | null> {
  const row = await q.oneOrNone(
    "SELECT * FROM exchange_account_links WHERE environment_id = $1 AND exchange_id = $2 AND user_id = $3 FOR UPDATE",
    [environmentId, exchangeId, userId],
  );
  return row ? toLink(row) : null;
}

/**
 * Stores (or replaces: linking again takes the new tokens) a user's link; `created` tells a first link from
 * a replaced one (the row's id stays). Null when the exchange or the user is not of the environment any more.
 */
export async function upsertLink(
  q: Queryable,
  environmentId: string,
  l: Omit<ExchangeLinkRecord, "environmentId">,
): Promise<(ExchangeLinkRecord & { created: boolean }) | null> {
  const row = await q.oneOrNone(
    `INSERT INTO exchange_account_links (id, environment_id, exchange_id, user_id, access_token_sealed, refresh_token_sealed, expires_at, scope)
     SELECT $1, $2, e.id, u.id, $5, $6, $7, $8 FROM exchanges e, users u
      WHERE e.id = $3 AND e.environment_id = $2 AND u.id = $4 AND u.environment_id = $2
     ON CONFLICT (exchange_id, user_id) DO UPDATE SET access_token_sealed = EXCLUDED.access_token_sealed,
       refresh_token_sealed = EXCLUDED.refresh_token_sealed, expires_at = EXCLUDED.expires_at, scope = EXCLUDED.scope, updated_at = now()
     RETURNING *, (xmax = 0) AS created`,
    [l.id, environmentId, l.exchangeId, l.userId, l.accessTokenSealed, l.refreshTokenSealed, l.expiresAt, l.scope],
  );
  return row ? { ...toLink(row), created: row.created === true } : null;
}

