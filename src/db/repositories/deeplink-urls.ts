import type { Queryable } from "../db.js";

export interface DeeplinkUrlRecord {
  id: string;
  environmentId: string;
  url: string;
  createdAt: Date;
}

const toDeeplinkUrl = (r: Record<string, any>): DeeplinkUrlRecord => ({ id: r.id, environmentId: r.environment_id, url: r.url, createdAt: r.created_at });

export async function listDeeplinkUrls(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const rows = await q.any("SELECT * FROM deeplink_urls WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
    environmentId,
    page.offset,
    page.limit,
  ]);
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM deeplink_urls WHERE environment_id = $1", [environmentId]);
  return { items: rows.map(toDeeplinkUrl), count: n };
}

export async function insertDeeplinkUrl(q: Queryable, environmentId: string, id: string, url: string): Promise<DeeplinkUrlRecord> {
  return toDeeplinkUrl(await q.one("INSERT INTO deeplink_urls (id, environment_id, url) VALUES ($1, $2, $3) RETURNING *", [id, environmentId, url]));
}

export async function deleteDeeplinkUrl(q: Queryable, environmentId: string, id: string): Promise<DeeplinkUrlRecord | null> {
  const row = await q.oneOrNone("DELETE FROM deeplink_urls WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toDeeplinkUrl(row) : null;
}
