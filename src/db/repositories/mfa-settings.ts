import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

export interface MfaSettingRecord {
  id: string | null;
  deviceType: string;
  enabled: boolean;
  updatedAt: Date | null;
}

export async function listMfaSettings(q: Queryable, organizationId: string): Promise<MfaSettingRecord[]> {
  const rows = await q.any("SELECT * FROM organization_mfa_settings WHERE organization_id = $1 ORDER BY device_type", [organizationId]);
  return rows.map(toSetting);
}

export async function lockMfaSetting(q: Queryable, organizationId: string, deviceType: string): Promise<MfaSettingRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM organization_mfa_settings WHERE organization_id = $1 AND device_type = $2 FOR UPDATE", [
    organizationId,
    deviceType,
  ]);
  return row ? toSetting(row) : null;
}

export async function upsertMfaSetting(q: Queryable, organizationId: string, deviceType: string, enabled: boolean): Promise<MfaSettingRecord> {
  const row = await q.one(
    `INSERT INTO organization_mfa_settings (id, organization_id, device_type, enabled) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id, device_type) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()
     RETURNING *`,
    [randomUUID(), organizationId, deviceType, enabled],
  );
  return toSetting(row);
}

function toSetting(r: Record<string, any>): MfaSettingRecord {
  return { id: r.id, deviceType: r.device_type, enabled: r.enabled, updatedAt: r.updated_at };
}
