import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/** One rule of a WaaS policy, as stored (jsonb). chain is the wallets' own word: EVM or SOL. */
export interface WaasPolicyRuleRecord {
  ruleId: string;
  name: string;
  ruleType: "allow" | "deny";
  chain: "EVM" | "SOL";
  /** The chain ids the rule is limited to (EVM chain ids, Solana network ids); empty: all. */
  chainIds: number[];
  addresses: string[];
  /** Decimal string in the chain's native unit; null: no limit. */
  maxPerCall: string | null;
  methods: string[];
}

export interface WaasPolicyRecord {
  id: string;
  environmentId: string;
  rules: WaasPolicyRuleRecord[];
  createdAt: Date;
  updatedAt: Date;
}

export async function findWaasPolicy(q: Queryable, environmentId: string): Promise<WaasPolicyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM waas_policies WHERE environment_id = $1", [environmentId]);
  return row ? toPolicy(row) : null;
}

/** The same, locking the row until the transaction ends (rule changes read, merge and write it). */
export async function findWaasPolicyForUpdate(q: Queryable, environmentId: string): Promise<WaasPolicyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM waas_policies WHERE environment_id = $1 FOR UPDATE", [environmentId]);
  return row ? toPolicy(row) : null;
}

/** Creates the environment's policy without rules; null when it already has one. */
export async function insertWaasPolicy(q: Queryable, environmentId: string): Promise<WaasPolicyRecord | null> {
  const row = await q.oneOrNone(
    `INSERT INTO waas_policies (id, environment_id, rules) VALUES ($1, $2, '[]'::jsonb)
     ON CONFLICT (environment_id) DO NOTHING RETURNING *`,
    [randomUUID(), environmentId],
  );
  return row ? toPolicy(row) : null;
}

/** Null when the environment has no policy. */
export async function updateWaasPolicy(q: Queryable, environmentId: string, rules: WaasPolicyRuleRecord[]): Promise<WaasPolicyRecord | null> {
  const row = await q.oneOrNone(
    "UPDATE waas_policies SET rules = $2::jsonb, updated_at = now() WHERE environment_id = $1 RETURNING *",
    [environmentId, JSON.stringify(rules)],
  );
  return row ? toPolicy(row) : null;
}

/** The deleted policy, or null when there was none. */
export async function deleteWaasPolicy(q: Queryable, environmentId: string): Promise<WaasPolicyRecord | null> {
  const row = await q.oneOrNone("DELETE FROM waas_policies WHERE environment_id = $1 RETURNING *", [environmentId]);
  return row ? toPolicy(row) : null;
}

/** The environment's sealed session-signing secret, or null before its first use. */
export async function findWaasSessionKey(q: Queryable, environmentId: string): Promise<{ id: string; secretSealed: string } | null> {
  const row = await q.oneOrNone("SELECT id, secret_sealed FROM waas_session_keys WHERE environment_id = $1", [environmentId]);
  return row ? { id: row.id, secretSealed: row.secret_sealed } : null;
}

/** Stores the environment's secret unless another request stored one first; false in that case. */
export async function insertWaasSessionKey(q: Queryable, environmentId: string, id: string, secretSealed: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `INSERT INTO waas_session_keys (id, environment_id, secret_sealed) VALUES ($1, $2, $3)
     ON CONFLICT (environment_id) DO NOTHING RETURNING id`,
    [id, environmentId, secretSealed],
  );
  return row !== null;
}

/** True when the hash is that of an active, undeleted token bound to this environment (and no other). */
export async function isActiveEnvironmentToken(q: Queryable, environmentId: string, tokenHash: Buffer): Promise<boolean> {
  const row = await q.oneOrNone(
    "SELECT 1 FROM api_tokens WHERE environment_id = $1 AND token_hash = $2 AND active AND deleted_at IS NULL",
    [environmentId, tokenHash],
  );
  return row !== null;
}

/** The same for a token named by its id. */
export async function isActiveEnvironmentTokenId(q: Queryable, environmentId: string, tokenId: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT 1 FROM api_tokens WHERE environment_id = $1 AND id = $2 AND active AND deleted_at IS NULL", [
    environmentId,
    tokenId,
  ]);
  return row !== null;
}

function toPolicy(r: Record<string, any>): WaasPolicyRecord {
  // Rules stored before rules took chain ids have none.
  const rules = (r.rules as WaasPolicyRuleRecord[]).map((rule) => ({ ...rule, chainIds: rule.chainIds ?? [] }));
  return { id: r.id, environmentId: r.environment_id, rules, createdAt: r.created_at, updatedAt: r.updated_at };
}
