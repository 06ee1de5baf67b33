import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export interface ExchangeRecord {
  id: string;
  environmentId: string;
  exchange: string;
  displayName: string | null;
  apiBaseUrl: string | null;
  /**
   * Sealed with src/crypto/seal.ts, bound to the row; opened only where the service calls the exchange.
   * Null (both) for a connection without credentials of its own.
   */
  apiKeySealed: string | null;
  apiSecretSealed: string | null;
  passphraseSealed: string | null;
  apiKeyHint: string | null;
  /** The provider kinds the SDK uses to sign end users in to the exchange and to buy through it. */
  socialProvider: string | null;
  onRampProvider: string | null;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewExchange = Omit<ExchangeRecord, "environmentId" | "enabledAt" | "createdAt" | "updatedAt">;

/** Inserts a connection, enabled at creation. */
export async function insertExchange(q: Queryable, environmentId: string, e: NewExchange): Promise<ExchangeRecord> {
  const row = await q.one(
    `INSERT INTO exchanges (id, environment_id, exchange, display_name, api_base_url, api_key_sealed, api_secret_sealed,
       passphrase_sealed, api_key_hint, social_provider, on_ramp_provider, enabled_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now()) RETURNING *`,
    [
      e.id,
      environmentId,
      e.exchange,
      e.displayName,
      e.apiBaseUrl,
      e.apiKeySealed,
      e.apiSecretSealed,
      e.passphraseSealed,
      e.apiKeyHint,
      e.socialProvider,
      e.onRampProvider,
    ],
  );
  return toExchange(row);
}

export async function exchangeKindExists(q: Queryable, environmentId: string, exchange: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM exchanges WHERE environment_id = $1 AND exchange = $2", [environmentId, exchange])) !== null;
}

export async function listExchanges(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const rows = await q.any("SELECT * FROM exchanges WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
    environmentId,
    page.offset,
    page.limit,
  ]);
  const { n } = await q.one("SELECT count(*)::int AS n FROM exchanges WHERE environment_id = $1", [environmentId]);
  return { exchanges: rows.map(toExchange), count: n as number };
}

export async function findExchange(q: Queryable, environmentId: string, id: string, forUpdate = false): Promise<ExchangeRecord | null> {
  const row = await q.oneOrNone(`SELECT * FROM exchanges WHERE environment_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [
    environmentId,
    id,
  ]);
  return row ? toExchange(row) : null;
}

export async function setExchangeEnabled(q: Queryable, environmentId: string, id: string, enabled: boolean): Promise<ExchangeRecord | null> {
  const row = await setEnabledAt(q, "exchanges", environmentId, { id }, enabled);
  return row ? toExchange(row) : null;
}

export async function deleteExchange(q: Queryable, environmentId: string, id: string): Promise<ExchangeRecord | null> {
  const row = await q.oneOrNone("DELETE FROM exchanges WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toExchange(row) : null;
}

export function toExchange(r: Record<string, any>): ExchangeRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    exchange: r.exchange,
    displayName: r.display_name,
    apiBaseUrl: r.api_base_url,
    apiKeySealed: r.api_key_sealed,
    apiSecretSealed: r.api_secret_sealed,
    passphraseSealed: r.passphrase_sealed,
    apiKeyHint: r.api_key_hint,
    socialProvider: r.social_provider,
    onRampProvider: r.on_ramp_provider,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
