import type { Queryable } from "../db.js";

export interface CustomNetworkRecord {
  id: string;
  organizationId: string;
  name: string;
  chainId: number;
  rpcUrls: string[];
  blockExplorerUrls: string[];
  nativeCurrency: { name: string; symbol: string; decimals: number; iconUrl: string | null };
  iconUrl: string | null;
  testnet: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type CustomNetworkFields = Omit<CustomNetworkRecord, "id" | "organizationId" | "createdAt" | "updatedAt">;

export async function insertCustomNetwork(q: Queryable, organizationId: string, id: string, n: CustomNetworkFields): Promise<CustomNetworkRecord> {
  const row = await q.one(
    `INSERT INTO custom_networks (id, organization_id, name, chain_id, rpc_urls, block_explorer_urls, native_currency_name,
       native_currency_symbol, native_currency_decimals, icon_url, testnet, native_currency_icon_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
    [
      id,
      organizationId,
      n.name,
      n.chainId,
      n.rpcUrls,
      n.blockExplorerUrls,
      n.nativeCurrency.name,
      n.nativeCurrency.symbol,
      n.nativeCurrency.decimals,
      n.iconUrl,
      n.testnet,
      n.nativeCurrency.iconUrl,
    ],
  );
  return toNetwork(row);
}

export async function updateCustomNetwork(
  q: Queryable,
  organizationId: string,
  id: string,
  n: CustomNetworkFields,
): Promise<CustomNetworkRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE custom_networks SET name = $3, chain_id = $4, rpc_urls = $5, block_explorer_urls = $6, native_currency_name = $7,
       native_currency_symbol = $8, native_currency_decimals = $9, icon_url = $10, testnet = $11, native_currency_icon_url = $12,
       updated_at = now()
     WHERE organization_id = $1 AND id = $2 RETURNING *`,
    [
      organizationId,
      id,
      n.name,
      n.chainId,
      n.rpcUrls,
      n.blockExplorerUrls,
      n.nativeCurrency.name,
      n.nativeCurrency.symbol,
      n.nativeCurrency.decimals,
      n.iconUrl,
      n.testnet,
      n.nativeCurrency.iconUrl,
    ],
  );
  return row ? toNetwork(row) : null;
}

export async function findCustomNetwork(q: Queryable, organizationId: string, id: string, forUpdate = false): Promise<CustomNetworkRecord | null> {
  const row = await q.oneOrNone(`SELECT * FROM custom_networks WHERE organization_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [
    organizationId,
    id,
  ]);
  return row ? toNetwork(row) : null;
}

/** The organization's custom network of this chain id (at most one: the pair is unique). */
export async function findCustomNetworkByChainId(q: Queryable, organizationId: string, chainId: number): Promise<CustomNetworkRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM custom_networks WHERE organization_id = $1 AND chain_id = $2", [organizationId, chainId]);
  return row ? toNetwork(row) : null;
}

export async function listCustomNetworks(
  q: Queryable,
  organizationId: string,
  page: { offset: number; limit: number },
): Promise<{ networks: CustomNetworkRecord[]; count: number }> {
  const [rows, total] = await Promise.all([
    q.any("SELECT * FROM custom_networks WHERE organization_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
      organizationId,
      page.offset,
      page.limit,
    ]),
    q.one<{ n: number }>("SELECT count(*)::int AS n FROM custom_networks WHERE organization_id = $1", [organizationId]),
  ]);
  return { networks: rows.map(toNetwork), count: total.n };
}

export async function deleteCustomNetwork(q: Queryable, organizationId: string, id: string): Promise<CustomNetworkRecord | null> {
  const row = await q.oneOrNone("DELETE FROM custom_networks WHERE organization_id = $1 AND id = $2 RETURNING *", [organizationId, id]);
  return row ? toNetwork(row) : null;
}

function toNetwork(r: Record<string, any>): CustomNetworkRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    chainId: Number(r.chain_id),
    rpcUrls: r.rpc_urls,
    blockExplorerUrls: r.block_explorer_urls,
    nativeCurrency: {
      name: r.native_currency_name,
      symbol: r.native_currency_symbol,
      decimals: r.native_currency_decimals,
      iconUrl: r.native_currency_icon_url,
    },
    iconUrl: r.icon_url,
    testnet: r.testnet,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
