import type { Queryable } from "../db.js";

export type ConnectionStatus = "connected" | "disconnected";

export interface GlobalWalletConnectionRecord {
  id: string;
  environmentId: string;
  userId: string;
  appUrl: string;
  status: ConnectionStatus;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A connection past its expiresAt is over, whatever its row says: it reads as disconnected. The row keeps
 * status 'connected' until the user connects to the app again (connectApp closes it then).
 */
const EFFECTIVE_STATUS = "CASE WHEN status = 'connected' AND expires_at <= now() THEN 'disconnected' ELSE status END";

const toConnection = (r: Record<string, any>): GlobalWalletConnectionRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  userId: r.user_id,
  appUrl: r.app_url,
  status: r.status === "connected" && r.expires_at && r.expires_at.getTime() <= Date.now() ? "disconnected" : r.status,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Inserts a live connection of a user of the environment; null when the user already has a live connection
 * to the app (the partial unique index global_wallet_connections_live_key) or is no user of the environment.
 */
export async function insertLiveConnection(
  q: Queryable,
  environmentId: string,
  c: { id: string; userId: string; appUrl: string; expiresAt: Date },
): Promise<GlobalWalletConnectionRecord | null> {
  const row = await q.oneOrNone(
    `INSERT INTO global_wallet_connections (id, environment_id, user_id, app_url, expires_at)
     SELECT $1, $2, u.id, $4, $5 FROM users u WHERE u.id = $3 AND u.environment_id = $2
     ON CONFLICT (environment_id, user_id, app_url) WHERE status = 'connected' DO NOTHING RETURNING *`,
    [c.id, environmentId, c.userId, c.appUrl, c.expiresAt],
  );
  return row ? toConnection(row) : null;
}

/** The user's connection to the app whose row is still 'connected' (possibly lapsed), locked for the caller's transaction. */
export async function lockLiveConnection(q: Queryable, environmentId: string, userId: string, appUrl: string): Promise<GlobalWalletConnectionRecord | null> {
  const row = await q.oneOrNone(
    "SELECT * FROM global_wallet_connections WHERE environment_id = $1 AND user_id = $2 AND app_url = $3 AND status = 'connected' FOR UPDATE",
    [environmentId, userId, appUrl],
  );
  return row ? toConnection(row) : null;
}

/** One connection of the user, locked for the caller's transaction; another user's or environment's: null. */
export async function lockUserConnection(q: Queryable, environmentId: string, userId: string, id: string): Promise<GlobalWalletConnectionRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM global_wallet_connections WHERE environment_id = $1 AND user_id = $2 AND id = $3 FOR UPDATE", [
    environmentId,
    userId,
    id,
  ]);
  return row ? toConnection(row) : null;
}

export async function setConnectionExpiry(q: Queryable, environmentId: string, id: string, expiresAt: Date): Promise<GlobalWalletConnectionRecord> {
  const row = await q.one("UPDATE global_wallet_connections SET expires_at = $3, updated_at = now() WHERE environment_id = $1 AND id = $2 RETURNING *", [
    environmentId,
    id,
    expiresAt,
  ]);
  return toConnection(row);
}

export async function setConnectionStatus(q: Queryable, environmentId: string, id: string, status: ConnectionStatus): Promise<GlobalWalletConnectionRecord> {
  const row = await q.one("UPDATE global_wallet_connections SET status = $3, updated_at = now() WHERE environment_id = $1 AND id = $2 RETURNING *", [
    environmentId,
    id,
    status,
  ]);
  return toConnection(row);
}

/** The environment's connections, oldest first, optionally of one user and/or in one status. */
export async function listConnections(
  q: Queryable,
  environmentId: string,
  filter: { userId?: string; status?: ConnectionStatus },
  page: { offset: number; limit: number },
): Promise<GlobalWalletConnectionRecord[]> {
  const rows = await q.any(
    `SELECT * FROM global_wallet_connections
     WHERE environment_id = $1 AND ($2::uuid IS NULL OR user_id = $2) AND ($3::text IS NULL OR ${EFFECTIVE_STATUS} = $3)
     ORDER BY created_at, id OFFSET $4 LIMIT $5`,
    [environmentId, filter.userId ?? null, filter.status ?? null, page.offset, page.limit],
  );
  return rows.map(toConnection);
}
