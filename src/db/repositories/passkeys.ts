import type { Queryable } from "../db.js";

/** One stored WebAuthn credential of an end user. */
export interface PasskeyRecord {
  id: string;
  environmentId: string;
  userId: string;
  /** Set for the key of a passkey MFA device: a second factor only, never a sign-in. */
  mfaDeviceId: string | null;
  /** base64url of the raw credential id. */
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  aaguid: string;
  attestationFormat: string;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  alias: string | null;
  origin: string;
  userAgent: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  lastUsedAt: Date | null;
}

export type NewPasskey = Omit<PasskeyRecord, "environmentId" | "userId" | "createdAt" | "updatedAt" | "lastUsedAt">;

const toPasskey = (r: Record<string, any>): PasskeyRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  userId: r.user_id,
  mfaDeviceId: r.mfa_device_id,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key),
  signCount: Number(r.sign_count),
  transports: r.transports,
  aaguid: r.aaguid,
  attestationFormat: r.attestation_format,
  deviceType: r.device_type,
  backedUp: r.backed_up,
  alias: r.alias,
  origin: r.origin,
  userAgent: r.user_agent,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastUsedAt: r.last_used_at,
});

export async function insertPasskey(q: Queryable, environmentId: string, userId: string, p: NewPasskey): Promise<PasskeyRecord> {
  return toPasskey(
    await q.one(
      `INSERT INTO user_passkeys (id, environment_id, user_id, mfa_device_id, credential_id, public_key, sign_count, transports, aaguid,
         attestation_format, device_type, backed_up, alias, origin, user_agent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      [
        p.id,
        environmentId,
        userId,
        p.mfaDeviceId,
        p.credentialId,
        Buffer.from(p.publicKey),
        p.signCount,
        p.transports,
        p.aaguid,
        p.attestationFormat,
        p.deviceType,
        p.backedUp,
        p.alias,
        p.origin,
        p.userAgent,
      ],
    ),
  );
}

/** The environment's credential with this id (an assertion names it). */
export async function findPasskeyByCredentialId(q: Queryable, environmentId: string, credentialId: string): Promise<PasskeyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM user_passkeys WHERE environment_id = $1 AND credential_id = $2", [environmentId, credentialId]);
  return row ? toPasskey(row) : null;
}

/** The user's sign-in passkeys (MFA device keys are listed as MFA devices), oldest first. */
export async function listSignInPasskeys(q: Queryable, environmentId: string, userId: string): Promise<PasskeyRecord[]> {
  const rows = await q.any(
    "SELECT * FROM user_passkeys WHERE environment_id = $1 AND user_id = $2 AND mfa_device_id IS NULL ORDER BY created_at, id",
    [environmentId, userId],
  );
  return rows.map(toPasskey);
}

/** The keys of the user's verified passkey MFA devices. */
export async function listMfaPasskeys(q: Queryable, environmentId: string, userId: string): Promise<PasskeyRecord[]> {
  const rows = await q.any(
    `SELECT p.* FROM user_passkeys p JOIN user_mfa_devices d ON d.id = p.mfa_device_id AND d.environment_id = p.environment_id
     WHERE p.environment_id = $1 AND p.user_id = $2 AND d.verified_at IS NOT NULL ORDER BY p.created_at, p.id`,
    [environmentId, userId],
  );
  return rows.map(toPasskey);
}

/** Every credential id the user holds (sign-in and MFA), so that an authenticator does not register twice. */
export async function listCredentialIds(q: Queryable, environmentId: string, userId: string): Promise<{ credentialId: string; transports: string[] }[]> {
  const rows = await q.any("SELECT credential_id, transports FROM user_passkeys WHERE environment_id = $1 AND user_id = $2 ORDER BY created_at, id", [
    environmentId,
    userId,
  ]);
  return rows.map((r) => ({ credentialId: r.credential_id, transports: r.transports }));
}

/** A sign-in passkey of the user, for the owner's own reads and changes. */
export async function findSignInPasskey(q: Queryable, environmentId: string, userId: string, id: string): Promise<PasskeyRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM user_passkeys WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND mfa_device_id IS NULL", [
    environmentId,
    userId,
    id,
  ]);
  return row ? toPasskey(row) : null;
}

export async function renamePasskey(q: Queryable, environmentId: string, userId: string, id: string, alias: string | null): Promise<PasskeyRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE user_passkeys SET alias = $4, updated_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND mfa_device_id IS NULL RETURNING *`,
    [environmentId, userId, id, alias],
  );
  return row ? toPasskey(row) : null;
}

export async function deleteSignInPasskey(q: Queryable, environmentId: string, userId: string, id: string): Promise<PasskeyRecord | null> {
  const row = await q.oneOrNone("DELETE FROM user_passkeys WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND mfa_device_id IS NULL RETURNING *", [
    environmentId,
    userId,
    id,
  ]);
  return row ? toPasskey(row) : null;
}

/**
 * Records a verified assertion: the new counter, and the backup state the authenticator reports now. The
 * counter only moves forward (`sign_count < $3`, or both zero for an authenticator that keeps none), so of
 * two assertions checked against one stored counter only the first is recorded: false for the second.
 */
export async function recordPasskeyUse(
  q: Queryable,
  environmentId: string,
  id: string,
  use: { signCount: number; backedUp: boolean },
): Promise<boolean> {
  const r = await q.result(
    `UPDATE user_passkeys SET sign_count = $3, backed_up = $4, last_used_at = now()
     WHERE environment_id = $1 AND id = $2 AND (sign_count < $3 OR (sign_count = 0 AND $3 = 0))`,
    [environmentId, id, use.signCount, use.backedUp],
  );
  return r.rowCount === 1;
}

/**
 * A verified passkey MFA device for the key: the device row (type 'passkey'), the user's default when they
 * have none yet (at most one default per user: a concurrent first enrolment fails on that index).
 */
export async function insertPasskeyMfaDevice(q: Queryable, environmentId: string, userId: string, id: string, alias: string | null): Promise<{ id: string; isDefault: boolean }> {
  const row = await q.one(
    `INSERT INTO user_mfa_devices (id, environment_id, user_id, type, alias, is_default, verified_at)
     VALUES ($1, $2, $3, 'passkey', $4, NOT EXISTS (SELECT 1 FROM user_mfa_devices WHERE environment_id = $2 AND user_id = $3 AND is_default), now())
     RETURNING id, is_default`,
    [id, environmentId, userId, alias],
  );
  return { id: row.id, isDefault: row.is_default };
}
