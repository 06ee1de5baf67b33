import type { Queryable } from "../db.js";

export interface CustomHostnameRecord {
  id: string;
  environmentId: string;
  hostname: string;
  status: "pending" | "active" | "failed";
  usage: "cookies" | "globalWallet";
  verificationToken: string;
  verifiedAt: Date | null;
  createdAt: Date;
}

const toHostname = (r: Record<string, any>): CustomHostnameRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  hostname: r.hostname,
  status: r.status,
  usage: r.usage,
  verificationToken: r.verification_token,
  verifiedAt: r.verified_at,
  createdAt: r.created_at,
});

export async function listCustomHostnames(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const rows = await q.any("SELECT * FROM custom_hostnames WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
    environmentId,
    page.offset,
    page.limit,
  ]);
  return { items: rows.map(toHostname), count: await countCustomHostnames(q, environmentId) };
}

export async function countCustomHostnames(q: Queryable, environmentId: string): Promise<number> {
  return (await q.one<{ n: number }>("SELECT count(*)::int AS n FROM custom_hostnames WHERE environment_id = $1", [environmentId])).n;
}

export async function insertCustomHostname(
  q: Queryable,
  environmentId: string,
  id: string,
  h: { hostname: string; usage: CustomHostnameRecord["usage"]; verificationToken: string },
) {
  return toHostname(
    await q.one("INSERT INTO custom_hostnames (id, environment_id, hostname, usage, verification_token) VALUES ($1, $2, $3, $4, $5) RETURNING *", [
      id,
      environmentId,
      h.hostname,
      h.usage,
      h.verificationToken,
    ]),
  );
}

export async function deleteCustomHostname(q: Queryable, environmentId: string, id: string): Promise<CustomHostnameRecord | null> {
  const row = await q.oneOrNone("DELETE FROM custom_hostnames WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toHostname(row) : null;
}
