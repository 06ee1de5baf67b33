import type { Queryable } from "../db.js";

export interface ComplianceRecord {
  environmentId: string;
  sanctionsEnabledAt: Date | null;
  updatedAt: Date | null;
}

/** The environment's compliance settings; everything off when never changed. */
export async function findCompliance(q: Queryable, environmentId: string, forUpdate = false): Promise<ComplianceRecord> {
  const row = await q.oneOrNone(`SELECT * FROM environment_compliance WHERE environment_id = $1${forUpdate ? " FOR UPDATE" : ""}`, [environmentId]);
  return row ? toCompliance(row) : { environmentId, sanctionsEnabledAt: null, updatedAt: null };
}

/** Turns sanctions screening on (keeping the first enabling time) or off. */
export async function setSanctionsEnabled(q: Queryable, environmentId: string, enabled: boolean): Promise<ComplianceRecord> {
  const row = await q.one(
    `INSERT INTO environment_compliance (environment_id, sanctions_enabled_at) VALUES ($1, CASE WHEN $2 THEN now() END)
     ON CONFLICT (environment_id) DO UPDATE
       SET sanctions_enabled_at = CASE WHEN $2 THEN COALESCE(environment_compliance.sanctions_enabled_at, now()) END, updated_at = now()
     RETURNING *`,
    [environmentId, enabled],
  );
  return toCompliance(row);
}

function toCompliance(r: Record<string, any>): ComplianceRecord {
  return { environmentId: r.environment_id, sanctionsEnabledAt: r.sanctions_enabled_at, updatedAt: r.updated_at };
}
