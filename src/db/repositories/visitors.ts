import type { Queryable } from "../db.js";
import { escapeLike, isUuid } from "../text-match.js";

/** A visit by a signed-in user, with the wallet that user signs in with (their first live wallet). */
export interface WalletVisitRow {
  id: string;
  visitorId: string;
  userId: string;
  address: string;
  chain: string;
  walletName: string;
  provider: string;
  createdAt: Date;
}

export type VisitorFilterColumn = "all" | "id" | "walletPublicKey";

export interface VisitorListQuery {
  filter?: { column: VisitorFilterColumn; value: string };
  /** Only visits of users with a live wallet on one of these chains (stored names). */
  chains?: readonly string[];
  orderBy: { column: "createdAt"; direction: "asc" | "desc" };
  offset: number;
  limit: number;
}

/** ORDER BY per whitelisted column and direction: visits_environment_signed_in_idx read either way. */
const ORDER_BY: Record<string, string> = {
  "createdAt:desc": "v.created_at DESC, v.id DESC",
  "createdAt:asc": "v.created_at, v.id",
};

/**
 * The FROM and WHERE of a list: the environment's visits by signed-in users, each joined to one wallet of its
 * user (none: not a wallet visitor). A wallet filter (address prefix, chains) restricts which wallet is shown,
 * so a visit shows the user's first wallet that matches; `all` prefers a matching wallet but keeps the visit
 * when it matched by id. Every way to match goes through an index: the visit's primary key, the visits of
 * users found through wallets_environment_address_prefix_idx / wallets_environment_chain_list_idx (then
 * visits_environment_user_idx), the user's id or the SDK visitor id (019_visitors_list.sql).
 */
function visitsSource(query: VisitorListQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (v: unknown) => `$${params.push(v) + 1}`; // $1 is the environment
  const chains = query.chains?.length ? param(query.chains) : null;
  const onChains = (column: string) => (chains ? ` AND ${column} = ANY(${chains}::text[])` : "");
  /** Users of the environment with a live wallet that matches (and is on the chains, if given). */
  const usersWithWallet = (cond = "") =>
    `SELECT user_id FROM wallets WHERE environment_id = $1 AND deleted_at IS NULL${cond}${onChains("chain")}`;
  let shownWallet = onChains("w.chain");
  let prefer = "";
  let matches = chains ? ` AND v.user_id IN (${usersWithWallet()})` : "";
  if (query.filter) {
    const { column, value } = query.filter;
    const uuid = isUuid(value.toLowerCase()) ? value.toLowerCase() : null;
    const prefix = `${escapeLike(value.toLowerCase())}%`;
    if (column === "id") {
      // Not a UUID: matches nothing (rather than a cast error).
      matches += uuid ? ` AND v.id = ${param(uuid)}::uuid` : " AND FALSE";
    } else if (column === "walletPublicKey") {
      const p = param(prefix);
      shownWallet += ` AND lower(w.address) LIKE ${p}`;
      matches = ` AND v.user_id IN (${usersWithWallet(` AND lower(address) LIKE ${p}`)})`;
    } else {
      const p = param(prefix);
      prefer = `(lower(w.address) LIKE ${p}) DESC, `;
      const arms = [
        `SELECT id FROM visits WHERE environment_id = $1 AND visitor_id = ${param(value)}`,
        `SELECT id FROM visits WHERE environment_id = $1 AND user_id IN (${usersWithWallet(` AND lower(address) LIKE ${p}`)})`,
      ];
      if (uuid) {
        const id = param(uuid);
        arms.push(`SELECT id FROM visits WHERE environment_id = $1 AND id = ${id}::uuid`);
        arms.push(`SELECT id FROM visits WHERE environment_id = $1 AND user_id = ${id}::uuid`);
      }
      matches += ` AND v.id IN (${arms.join(" UNION ALL ")})`;
    }
  }
  const sql = `FROM visits v
    JOIN LATERAL (SELECT w.address, w.chain, w.name, w.provider FROM wallets w
                  WHERE w.environment_id = v.environment_id AND w.user_id = v.user_id AND w.deleted_at IS NULL${shownWallet}
                  ORDER BY ${prefer}w.created_at, w.id LIMIT 1) w ON true
    WHERE v.environment_id = $1 AND v.user_id IS NOT NULL${matches}`;
  return { sql, params };
}

/** SQL of the page and of the count. */
function visitorListSql(environmentId: string, query: VisitorListQuery) {
  const order = ORDER_BY[`${query.orderBy.column}:${query.orderBy.direction}`];
  if (!order) throw new Error("order not whitelisted");
  const source = visitsSource(query);
  const params = [environmentId, ...source.params];
  const n = params.length;
  return {
    page: `SELECT v.id, v.visitor_id, v.user_id, w.address, w.chain, w.name, w.provider, v.created_at ${source.sql}
           ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    count: `SELECT count(*)::int AS n ${source.sql}`,
    params,
    pageParams: [...params, query.limit, query.offset],
  };
}

/**
 * The environment's visits made with a wallet that match the query, one page, and how many match. Anonymous
 * visits (no signed-in user with a wallet) count in the visit analytics but are not wallet visitors.
 */
export async function listWalletVisits(q: Queryable, environmentId: string, query: VisitorListQuery): Promise<{ rows: WalletVisitRow[]; count: number }> {
  const sql = visitorListSql(environmentId, query);
  const [rows, total] = await Promise.all([q.any(sql.page, sql.pageParams), q.one(sql.count, sql.params)]);
  return {
    rows: rows.map((r) => ({
      id: r.id,
      visitorId: r.visitor_id,
      userId: r.user_id,
      address: r.address,
      chain: r.chain,
      walletName: r.name,
      provider: r.provider,
      createdAt: r.created_at,
    })),
    count: total.n,
  };
}
