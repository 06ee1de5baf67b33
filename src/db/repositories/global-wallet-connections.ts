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

const toConnection = (r: Record<string, any>): GlobalWalletConnectionRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  userId: r.user_id,
  appUrl: r.app_url,
  status: r.status,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function insertConnection(
  q: Queryable,
  environmentId: string,
  c: { id: string; userId: string; appUrl: string; expiresAt: Date | null },
): Promise<GlobalWalletConnectionRecord> {
  const row = await q.one(
    `INSERT INTO global_wallet_connections (id, environment_id, user_id, app_url, expires_at)
     SELECT $1, $2, u.id, $4, $5 FROM users u WHERE u.id = $3 AND u.environment_id = $2 RETURNING *`,
    [c.id, environmentId, c.userId, c.appUrl, c.expiresAt],
  );
  return toConnection(row);
}

export async function setConnectionStatus(
  q: Queryable,
  environmentId: string,
  id: string,
  status: ConnectionStatus,
): Promise<GlobalWalletConnectionRecord | null> {
  const row = await q.oneOrNone(
    "UPDATE global_wallet_connections SET status = $3, updated_at = now() WHERE environment_id = $1 AND id = $2 RETURNING *",
    [environmentId, id, status],
  );
  return row ? toConnection(row) : null;
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
     WHERE environment_id = $1 AND ($2::uuid IS NULL OR user_id = $2) AND ($3::text IS NULL OR status = $3)
     ORDER BY created_at, id OFFSET $4 LIMIT $5`,
    [environmentId, filter.userId ?? null, filter.status ?? null, page.offset, page.limit],
  );
  return rows.map(toConnection);
}
