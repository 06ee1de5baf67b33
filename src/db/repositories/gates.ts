import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export interface GateRuleData {
  type: string;
  chain: string;
  address: { contractAddress: string; networkId: number };
  filter: { tokenId?: string; amount: string };
}

export interface GateRecord {
  id: string;
  environmentId: string;
  name: string;
  outcome: string;
  scope: string | null;
  rules: GateRuleData[];
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface GateFields {
  name: string;
  outcome: string;
  scope: string | null;
  rules: GateRuleData[];
}

export async function insertGate(q: Queryable, environmentId: string, id: string, g: GateFields): Promise<GateRecord> {
  const row = await q.one(
    "INSERT INTO gates (id, environment_id, name, outcome, scope, rules) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING *",
    [id, environmentId, g.name, g.outcome, g.scope, JSON.stringify(g.rules)],
  );
  return toGate(row);
}

export async function listGates(q: Queryable, environmentId: string, page: { offset: number; limit: number }) {
  const rows = await q.any("SELECT * FROM gates WHERE environment_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3", [
    environmentId,
    page.offset,
    page.limit,
  ]);
  const { n } = await q.one("SELECT count(*)::int AS n FROM gates WHERE environment_id = $1", [environmentId]);
  return { gates: rows.map(toGate), count: n as number };
}

export async function findGate(q: Queryable, environmentId: string, id: string, forUpdate = false): Promise<GateRecord | null> {
  const row = await q.oneOrNone(`SELECT * FROM gates WHERE environment_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [environmentId, id]);
  return row ? toGate(row) : null;
}

export async function updateGate(q: Queryable, environmentId: string, id: string, g: GateFields): Promise<GateRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE gates SET name = $3, outcome = $4, scope = $5, rules = $6::jsonb, updated_at = now()
     WHERE environment_id = $1 AND id = $2 RETURNING *`,
    [environmentId, id, g.name, g.outcome, g.scope, JSON.stringify(g.rules)],
  );
  return row ? toGate(row) : null;
}

export async function setGateEnabled(q: Queryable, environmentId: string, id: string, enabled: boolean): Promise<GateRecord | null> {
  const row = await setEnabledAt(q, "gates", environmentId, { id }, enabled);
  return row ? toGate(row) : null;
}

export async function deleteGate(q: Queryable, environmentId: string, id: string): Promise<GateRecord | null> {
  const row = await q.oneOrNone("DELETE FROM gates WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toGate(row) : null;
}

function toGate(r: Record<string, any>): GateRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    name: r.name,
    outcome: r.outcome,
    scope: r.scope,
    rules: r.rules,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
