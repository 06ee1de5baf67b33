import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export interface NameServiceRecord {
  id: string;
  environmentId: string;
  chainName: string;
  domain: string;
  ownerAddress: string;
  signedMessage: string;
  signature: string;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewNameService = Pick<NameServiceRecord, "id" | "chainName" | "domain" | "ownerAddress" | "signedMessage" | "signature">;

/** Inserts a name service, enabled at creation. A second one for the same chain violates the unique index. */
export async function insertNameService(q: Queryable, environmentId: string, n: NewNameService): Promise<NameServiceRecord> {
  const row = await q.one(
    `INSERT INTO name_services (id, environment_id, chain_name, domain, owner_address, signed_message, signature, enabled_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now()) RETURNING *`,
    [n.id, environmentId, n.chainName, n.domain, n.ownerAddress, n.signedMessage, n.signature],
  );
  return toNameService(row);
}

export async function findNameService(q: Queryable, environmentId: string, chainName: string): Promise<NameServiceRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM name_services WHERE environment_id = $1 AND chain_name = $2", [environmentId, chainName]);
  return row ? toNameService(row) : null;
}

/** Enables (keeping the first enabling time) or disables (enabledAt becomes null). */
export async function setNameServiceEnabled(
  q: Queryable,
  environmentId: string,
  chainName: string,
  enabled: boolean,
): Promise<NameServiceRecord | null> {
  const row = await setEnabledAt(q, "name_services", environmentId, { chain_name: chainName }, enabled);
  return row ? toNameService(row) : null;
}

export async function deleteNameService(q: Queryable, environmentId: string, chainName: string): Promise<NameServiceRecord | null> {
  const row = await q.oneOrNone("DELETE FROM name_services WHERE environment_id = $1 AND chain_name = $2 RETURNING *", [environmentId, chainName]);
  return row ? toNameService(row) : null;
}

function toNameService(r: Record<string, any>): NameServiceRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    chainName: r.chain_name,
    domain: r.domain,
    ownerAddress: r.owner_address,
    signedMessage: r.signed_message,
    signature: r.signature,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
