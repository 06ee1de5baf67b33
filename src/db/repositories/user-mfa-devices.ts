import { toDate, type Queryable } from "../db.js";

/** A second-factor device of an end user (read as part of the user aggregate, see user-aggregate.ts). */
export interface UserMfaDeviceRecord {
  id: string;
  userId: string;
  type: string;
  alias: string | null;
  isDefault: boolean;
  createdAt: Date;
  verifiedAt: Date | null;
}

/** A user_mfa_devices row, from the driver or from to_jsonb (dates as strings there). */
export function toUserMfaDevice(r: Record<string, any>): UserMfaDeviceRecord {
  return {
    id: r.id,
    userId: r.user_id,
    type: r.type,
    alias: r.alias,
    isDefault: r.is_default,
    createdAt: toDate(r.created_at)!,
    verifiedAt: toDate(r.verified_at),
  };
}

/** Removes every device of the user; returns the ids removed. */
export async function deleteUserMfaDevices(q: Queryable, environmentId: string, userId: string): Promise<string[]> {
  return q.map("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 RETURNING id", [environmentId, userId], (r) => r.id as string);
}

/** Removes the user's recovery codes (they stand in for devices); returns how many were unused. */
export async function deleteUserRecoveryCodes(q: Queryable, environmentId: string, userId: string): Promise<number> {
  const rows = await q.any("DELETE FROM user_mfa_recovery_codes WHERE environment_id = $1 AND user_id = $2 RETURNING used_at", [environmentId, userId]);
  await q.none("UPDATE users SET mfa_backup_code_acknowledgement = NULL WHERE environment_id = $1 AND id = $2", [environmentId, userId]);
  return rows.filter((r) => r.used_at === null).length;
}
