import type { Queryable } from "../db.js";
import { toUserMfaDevice, type UserMfaDeviceRecord } from "./user-mfa-devices.js";

/**
 * The signed-in user's second factors (SDK MFA operations): devices of user_mfa_devices (TOTP here; passkey
 * devices are created by src/db/repositories/passkeys.ts) and recovery codes. Every statement names the
 * environment and the user, so one user's session can never reach another's rows.
 */

const DEVICE_COLUMNS = "id, user_id, type, alias, is_default, created_at, verified_at";

/** A TOTP device with what checking a code needs. */
export interface TotpDeviceSecret {
  id: string;
  secretSealed: string;
  verified: boolean;
  lastCounter: number | null;
}

const toTotpSecret = (r: Record<string, any>): TotpDeviceSecret => ({
  id: r.id,
  secretSealed: r.totp_secret_sealed,
  verified: r.verified_at !== null,
  lastCounter: r.totp_last_counter === null ? null : Number(r.totp_last_counter),
});

export async function listDevices(q: Queryable, environmentId: string, userId: string): Promise<UserMfaDeviceRecord[]> {
  return q.map(
    `SELECT ${DEVICE_COLUMNS} FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 ORDER BY created_at, id`,
    [environmentId, userId],
    toUserMfaDevice,
  );
}

export async function findDevice(q: Queryable, environmentId: string, userId: string, deviceId: string): Promise<UserMfaDeviceRecord | null> {
  const row = await q.oneOrNone(`SELECT ${DEVICE_COLUMNS} FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND id = $3`, [
    environmentId,
    userId,
    deviceId,
  ]);
  return row ? toUserMfaDevice(row) : null;
}

export async function hasVerifiedDevice(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.one(
    "SELECT EXISTS (SELECT 1 FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND verified_at IS NOT NULL) AS found",
    [environmentId, userId],
  );
  return row.found;
}

/** A new, unverified TOTP device; the user's earlier unfinished TOTP enrolments are dropped (one pending at a time). */
export async function insertPendingTotpDevice(q: Queryable, environmentId: string, userId: string, d: { id: string; secretSealed: string }): Promise<UserMfaDeviceRecord> {
  await q.none("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND type = 'totp' AND verified_at IS NULL", [environmentId, userId]);
  const row = await q.one(
    `INSERT INTO user_mfa_devices (id, environment_id, user_id, type, totp_secret_sealed) VALUES ($1, $2, $3, 'totp', $4) RETURNING ${DEVICE_COLUMNS}`,
    [d.id, environmentId, userId, d.secretSealed],
  );
  return toUserMfaDevice(row);
}

/** The user's TOTP enrolment waiting for its first code, if any. */
export async function findPendingTotpDevice(q: Queryable, environmentId: string, userId: string): Promise<TotpDeviceSecret | null> {
  const row = await q.oneOrNone(
    `SELECT id, totp_secret_sealed, verified_at, totp_last_counter FROM user_mfa_devices
     WHERE environment_id = $1 AND user_id = $2 AND type = 'totp' AND verified_at IS NULL
     ORDER BY created_at DESC LIMIT 1`,
    [environmentId, userId],
  );
  return row ? toTotpSecret(row) : null;
}

/** A verified TOTP device of the user: the one named, else the default one first, else the oldest. */
export async function findVerifiedTotpDevice(q: Queryable, environmentId: string, userId: string, deviceId?: string): Promise<TotpDeviceSecret | null> {
  const row = await q.oneOrNone(
    `SELECT id, totp_secret_sealed, verified_at, totp_last_counter FROM user_mfa_devices
     WHERE environment_id = $1 AND user_id = $2 AND type = 'totp' AND verified_at IS NOT NULL AND ($3::uuid IS NULL OR id = $3::uuid)
     ORDER BY is_default DESC, created_at, id LIMIT 1`,
    [environmentId, userId, deviceId ?? null],
  );
  return row ? toTotpSecret(row) : null;
}

/**
 * Takes the time step of an accepted code, only when it is after the last one the device accepted: of
 * two requests with one code (or a code and an older one), exactly one updates the row. The first accepted
 * code also verifies the device, and makes it the default when the user has none. False: replayed.
 */
export async function acceptTotpCounter(q: Queryable, environmentId: string, userId: string, deviceId: string, counter: number): Promise<boolean> {
  const row = await q.oneOrNone(
    `UPDATE user_mfa_devices d SET totp_last_counter = $4, verified_at = coalesce(d.verified_at, now()),
       is_default = d.is_default OR (d.verified_at IS NULL AND NOT EXISTS (
         SELECT 1 FROM user_mfa_devices o WHERE o.environment_id = $1 AND o.user_id = $2 AND o.is_default))
     WHERE d.environment_id = $1 AND d.user_id = $2 AND d.id = $3 AND d.type = 'totp'
       AND (d.totp_last_counter IS NULL OR d.totp_last_counter < $4)
     RETURNING d.id`,
    [environmentId, userId, deviceId, counter],
  );
  return row !== null;
}

/** Makes the device the user's one default (the caller holds the user's lock). False when it is not theirs or not verified. */
export async function makeDefaultDevice(q: Queryable, environmentId: string, userId: string, deviceId: string): Promise<boolean> {
  const target = await q.oneOrNone("SELECT id FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND verified_at IS NOT NULL", [
    environmentId,
    userId,
    deviceId,
  ]);
  if (!target) return false;
  // Two statements: the one-default index is checked row by row, so the old default is cleared first.
  await q.none("UPDATE user_mfa_devices SET is_default = false WHERE environment_id = $1 AND user_id = $2 AND is_default AND id <> $3", [environmentId, userId, deviceId]);
  await q.none("UPDATE user_mfa_devices SET is_default = true WHERE environment_id = $1 AND user_id = $2 AND id = $3", [environmentId, userId, deviceId]);
  return true;
}

export async function deleteDevice(q: Queryable, environmentId: string, userId: string, deviceId: string): Promise<boolean> {
  const row = await q.oneOrNone("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND NOT is_default RETURNING id", [
    environmentId,
    userId,
    deviceId,
  ]);
  return row !== null;
}

/** Whether the user has a set of recovery codes (used or not): a set is shown once, when it is made. */
export async function hasRecoveryCodes(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.one("SELECT EXISTS (SELECT 1 FROM user_mfa_recovery_codes WHERE environment_id = $1 AND user_id = $2) AS found", [environmentId, userId]);
  return row.found;
}

/**
 * Replaces the user's recovery codes by the given hashes (the caller holds the user's lock); a new set waits
 * for the user to confirm keeping it (mfaBackupCodeAcknowledgement pending).
 */
export async function replaceRecoveryCodes(q: Queryable, environmentId: string, userId: string, hashes: Buffer[]): Promise<void> {
  await q.none("DELETE FROM user_mfa_recovery_codes WHERE environment_id = $1 AND user_id = $2", [environmentId, userId]);
  await q.none("UPDATE users SET mfa_backup_code_acknowledgement = 'pending' WHERE environment_id = $1 AND id = $2", [environmentId, userId]);
  await q.none("INSERT INTO user_mfa_recovery_codes (environment_id, user_id, code_hash) SELECT $1, $2, unnest($3::bytea[])", [environmentId, userId, hashes]);
}

/** The user confirms keeping their recovery codes; false when no set waits for it. */
export async function acknowledgeRecoveryCodes(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    "UPDATE users SET mfa_backup_code_acknowledgement = 'complete' WHERE environment_id = $1 AND id = $2 AND mfa_backup_code_acknowledgement = 'pending' RETURNING id",
    [environmentId, userId],
  );
  return row !== null;
}

/** Spends one recovery code: true for exactly one of any number of concurrent uses of an unused code. */
export async function useRecoveryCode(q: Queryable, environmentId: string, userId: string, hash: Buffer): Promise<boolean> {
  const row = await q.oneOrNone(
    "UPDATE user_mfa_recovery_codes SET used_at = now() WHERE environment_id = $1 AND user_id = $2 AND code_hash = $3 AND used_at IS NULL RETURNING code_hash",
    [environmentId, userId, hash],
  );
  return row !== null;
}

/** Whether the address is one of the user's verified e-mail credentials (where an e-mail second factor may go). */
export async function hasVerifiedEmail(q: Queryable, environmentId: string, userId: string, email: string): Promise<boolean> {
  const row = await q.one(
    `SELECT EXISTS (SELECT 1 FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND format = 'email'
       AND lower(email) = lower($3) AND deleted_at IS NULL) AS found`,
    [environmentId, userId, email],
  );
  return row.found;
}

/** What a user has that may serve as a second factor, and how else they sign in (src/domain/mfa/factors.ts). */
export interface UserFactorRecord {
  /** The types of the user's verified devices (totp, passkey). */
  deviceTypes: string[];
  /** The user's verified e-mail addresses. */
  emails: string[];
  /** Ways to sign in that are not an e-mail address: wallets, phones, OAuth accounts, an external identity, passkeys. */
  otherSignInWays: number;
}

export async function findUserFactors(q: Queryable, environmentId: string, userId: string): Promise<UserFactorRecord> {
  const row = await q.one(
    `SELECT
       ARRAY(SELECT type FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2 AND verified_at IS NOT NULL) AS device_types,
       ARRAY(SELECT email FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND format = 'email' AND deleted_at IS NULL) AS emails,
       (SELECT count(*) FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL)
         + (SELECT count(*) FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL AND sign_in_enabled
              AND format NOT IN ('email', 'blockchain'))
         + (SELECT count(*) FROM users WHERE environment_id = $1 AND id = $2 AND external_user_id IS NOT NULL)
         + (SELECT count(*) FROM user_passkeys WHERE environment_id = $1 AND user_id = $2 AND mfa_device_id IS NULL) AS other_sign_in_ways`,
    [environmentId, userId],
  );
  return { deviceTypes: row.device_types, emails: row.emails, otherSignInWays: Number(row.other_sign_in_ways) };
}

/**
 * The credential the user's session signed in with: its kind and, for an e-mail, the address (read from the
 * credential even if it was removed since). Null for a session of before first factors were kept.
 */
export async function findSessionFirstFactor(
  q: Queryable,
  environmentId: string,
  userId: string,
  sessionId: string,
): Promise<{ kind: string; email: string | null } | null> {
  const row = await q.oneOrNone(
    `SELECT s.first_factor_kind, c.email FROM sessions s
     LEFT JOIN verified_credentials c ON c.environment_id = s.environment_id AND c.id::text = s.first_factor_id AND c.format = 'email'
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3`,
    [environmentId, userId, sessionId],
  );
  return row?.first_factor_kind ? { kind: row.first_factor_kind, email: row.email ?? null } : null;
}
