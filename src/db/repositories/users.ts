import { randomUUID } from "node:crypto";
import { toDate, type Queryable } from "../db.js";

export interface UserProfile {
  email?: string | null;
  phoneNumber?: string | null;
  alias?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  username?: string | null;
  jobTitle?: string | null;
  country?: string | null;
  team?: string | null;
  tShirtSize?: string | null;
  policiesConsent?: boolean;
  metadata?: Record<string, unknown>;
  externalUserId?: string | null;
}

export interface UserRecord extends Required<Omit<UserProfile, "policiesConsent" | "metadata">> {
  id: string;
  /** The credential the user signed in or linked with last. */
  lastVerifiedCredentialId: string | null;
  environmentId: string;
  /** Whether the user confirmed keeping their recovery codes; null while they have none. */
  mfaBackupCodeAcknowledgement: "pending" | "complete" | null;
  policiesConsent: boolean;
  metadata: Record<string, unknown>;
  firstVisit: Date | null;
  lastVisit: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CredentialRecord {
  id: string;
  userId: string;
  format: "email" | "phoneNumber" | "oauth";
  email: string | null;
  phoneNumber: string | null;
  phoneCountryCode: string | null;
  isoCountryCode: string | null;
  oauthProvider: string | null;
  oauthAccountId: string | null;
  oauthUsername: string | null;
  oauthDisplayName: string | null;
  oauthEmails: string[];
  oauthPhotos: string[];
  oauthMetadata: Record<string, unknown>;
  /** Sealed provider tokens (never presented); see domain/users/oauth-tokens.ts. */
  oauthAccessTokenSealed: string | null;
  oauthRefreshTokenSealed: string | null;
  oauthAccessTokenExpiresAt: Date | null;
  signInEnabled: boolean;
  verifiedAt: Date;
  lastSelectedAt: Date | null;
  /** Users that held the credential before (merges), oldest first. */
  previousUserIds: string[];
}

export interface SessionRecord {
  id: string;
  createdAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  revokedAt: Date | null;
  /** When the session's latest token expires (null for sessions opened before this was kept). */
  expiresAt: Date | null;
}

export async function insertUser(q: Queryable, environmentId: string, p: UserProfile): Promise<UserRecord> {
  const row = await q.one(
    `INSERT INTO users (id, environment_id, email, phone_number, alias, first_name, last_name, username, job_title,
                        country, team, t_shirt_size, policies_consent, metadata, external_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
    [
      randomUUID(),
      environmentId,
      p.email ?? null,
      p.phoneNumber ?? null,
      p.alias ?? null,
      p.firstName ?? null,
      p.lastName ?? null,
      p.username ?? null,
      p.jobTitle ?? null,
      p.country ?? null,
      p.team ?? null,
      p.tShirtSize ?? null,
      p.policiesConsent ?? false,
      p.metadata ?? {},
      p.externalUserId ?? null,
    ],
  );
  return toUser(row);
}

/** Profile columns an update may set, API name -> column. */
const PROFILE_COLUMNS: Record<string, string> = {
  email: "email",
  phoneNumber: "phone_number",
  alias: "alias",
  firstName: "first_name",
  lastName: "last_name",
  username: "username",
  jobTitle: "job_title",
  country: "country",
  team: "team",
  tShirtSize: "t_shirt_size",
  policiesConsent: "policies_consent",
  metadata: "metadata",
  externalUserId: "external_user_id",
};

/** Sets the given profile fields (absent keys keep their value). Null when the user is not live here. */
export async function updateUser(q: Queryable, environmentId: string, userId: string, p: UserProfile): Promise<UserRecord | null> {
  const sets: string[] = [];
  const values: unknown[] = [environmentId, userId];
  for (const [key, column] of Object.entries(PROFILE_COLUMNS)) {
    const v = (p as Record<string, unknown>)[key];
    if (v === undefined) continue;
    values.push(v);
    sets.push(`${column} = $${values.length}`);
  }
  sets.push("updated_at = now()");
  const row = await q.oneOrNone(
    `UPDATE users SET ${sets.join(", ")} WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING *`,
    values,
  );
  return row ? toUser(row) : null;
}

/** Locks a live user row for the rest of the transaction (read-modify-write of updates). */
export async function lockUser(q: Queryable, environmentId: string, userId: string): Promise<UserRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE", [
    environmentId,
    userId,
  ]);
  return row ? toUser(row) : null;
}

/**
 * Soft-deletes a user: marks the user and its credentials deleted (which frees its e-mail, phone number,
 * external id and OAuth accounts for other users) and revokes its live sessions, which it returns (the
 * caller marks them revoked in the store). Null when absent.
 */
export async function softDeleteUser(q: Queryable, environmentId: string, userId: string): Promise<{ id: string; expiresAt: Date | null }[] | null> {
  const row = await q.oneOrNone(
    "UPDATE users SET deleted_at = now(), updated_at = now() WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING deleted_at",
    [environmentId, userId],
  );
  if (!row) return null;
  await q.none("UPDATE verified_credentials SET deleted_at = $3 WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL", [
    environmentId,
    userId,
    row.deleted_at,
  ]);
  return revokeUserSessions(q, environmentId, userId);
}

/** Replaces the user's verified credentials of one format (e-mail or phone number) after a profile change. */
export async function replaceContactCredential(
  q: Queryable,
  environmentId: string,
  userId: string,
  format: "email" | "phoneNumber",
  value: string | null,
): Promise<void> {
  await q.none("DELETE FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND format = $3", [environmentId, userId, format]);
  if (value) await insertCredential(q, environmentId, userId, format === "email" ? { format, email: value } : { format, phoneNumber: value });
}

export async function userExistsWithExternalId(q: Queryable, environmentId: string, externalUserId: string, exceptUserId?: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM users WHERE environment_id = $1 AND external_user_id = $2 AND deleted_at IS NULL AND id IS DISTINCT FROM $3",
      [environmentId, externalUserId, exceptUserId ?? null],
    )) !== null
  );
}

/** Revokes every live session of a user; returns those it revoked (their ids and when their tokens expire). */
export async function revokeUserSessions(q: Queryable, environmentId: string, userId: string): Promise<{ id: string; expiresAt: Date | null }[]> {
  const rows = await q.any(
    "UPDATE sessions SET revoked_at = now() WHERE environment_id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id, expires_at",
    [environmentId, userId],
  );
  return rows.map((r) => ({ id: r.id, expiresAt: r.expires_at }));
}

/** Revokes one session (a revoked one keeps its first revokedAt). Null when it is not in the environment. */
export async function revokeSession(q: Queryable, environmentId: string, sessionId: string): Promise<(SessionRecord & { userId: string; wasRevoked: boolean }) | null> {
  const before = await q.oneOrNone(
    `SELECT s.revoked_at FROM sessions s JOIN users u ON u.id = s.user_id AND u.environment_id = s.environment_id
     WHERE s.environment_id = $1 AND s.id = $2 AND u.deleted_at IS NULL FOR UPDATE OF s`,
    [environmentId, sessionId],
  );
  if (!before) return null;
  const row = await q.one(
    "UPDATE sessions SET revoked_at = coalesce(revoked_at, now()) WHERE environment_id = $1 AND id = $2 RETURNING *",
    [environmentId, sessionId],
  );
  return { ...toSession(row), userId: row.user_id, wasRevoked: before.revoked_at !== null };
}

/** One session of a live user of the environment. */
export async function findSession(q: Queryable, environmentId: string, userId: string, sessionId: string): Promise<SessionRecord | null> {
  const row = await q.oneOrNone(
    `SELECT s.* FROM sessions s JOIN users u ON u.id = s.user_id AND u.environment_id = s.environment_id
     WHERE s.environment_id = $1 AND s.user_id = $2 AND s.id = $3 AND u.deleted_at IS NULL`,
    [environmentId, userId, sessionId],
  );
  return row ? toSession(row) : null;
}

/** An OAuth account (credential of format oauth) of a live user, with its sealed tokens. */
export async function findOauthAccount(q: Queryable, environmentId: string, credentialId: string): Promise<CredentialRecord | null> {
  const row = await q.oneOrNone(
    `SELECT c.* FROM verified_credentials c JOIN users u ON u.id = c.user_id AND u.environment_id = c.environment_id
     WHERE c.environment_id = $1 AND c.id = $2 AND c.format = 'oauth' AND c.deleted_at IS NULL AND u.deleted_at IS NULL`,
    [environmentId, credentialId],
  );
  return row ? toCredential(row) : null;
}

export async function findUser(q: Queryable, environmentId: string, userId: string): Promise<UserRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL", [
    environmentId,
    userId,
  ]);
  return row ? toUser(row) : null;
}

export async function userExistsWithEmail(q: Queryable, environmentId: string, email: string, exceptUserId?: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM users WHERE environment_id = $1 AND lower(email) = lower($2) AND deleted_at IS NULL AND id IS DISTINCT FROM $3",
      [environmentId, email, exceptUserId ?? null],
    )) !== null
  );
}

export async function userExistsWithPhone(q: Queryable, environmentId: string, phone: string, exceptUserId?: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM users WHERE environment_id = $1 AND phone_number = $2 AND deleted_at IS NULL AND id IS DISTINCT FROM $3",
      [environmentId, phone, exceptUserId ?? null],
    )) !== null
  );
}

export async function insertCredential(
  q: Queryable,
  environmentId: string,
  userId: string,
  c: Partial<Omit<CredentialRecord, "userId" | "verifiedAt" | "lastSelectedAt">> & { format: CredentialRecord["format"] },
): Promise<string> {
  const id = c.id ?? randomUUID();
  await q.none(
    `INSERT INTO verified_credentials (id, environment_id, user_id, format, email, phone_number, phone_country_code,
       iso_country_code, oauth_provider, oauth_account_id, oauth_username, oauth_display_name, oauth_emails,
       oauth_photos, oauth_metadata, oauth_access_token_sealed, oauth_refresh_token_sealed, oauth_access_token_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      id,
      environmentId,
      userId,
      c.format,
      c.email ?? null,
      c.phoneNumber ?? null,
      c.phoneCountryCode ?? null,
      c.isoCountryCode ?? null,
      c.oauthProvider ?? null,
      c.oauthAccountId ?? null,
      c.oauthUsername ?? null,
      c.oauthDisplayName ?? null,
      c.oauthEmails ?? [],
      c.oauthPhotos ?? [],
      c.oauthMetadata ?? {},
      c.oauthAccessTokenSealed ?? null,
      c.oauthRefreshTokenSealed ?? null,
      c.oauthAccessTokenExpiresAt ?? null,
    ],
  );
  return id;
}

export async function oauthAccountTaken(q: Queryable, environmentId: string, provider: string, accountId: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM verified_credentials WHERE environment_id = $1 AND format = 'oauth' AND oauth_provider = $2 AND oauth_account_id = $3 AND deleted_at IS NULL",
      [environmentId, provider, accountId],
    )) !== null
  );
}

export function toCredential(r: Record<string, any>): CredentialRecord {
  return {
    id: r.id,
    userId: r.user_id,
    format: r.format,
    email: r.email,
    phoneNumber: r.phone_number,
    phoneCountryCode: r.phone_country_code,
    isoCountryCode: r.iso_country_code,
    oauthProvider: r.oauth_provider,
    oauthAccountId: r.oauth_account_id,
    oauthUsername: r.oauth_username,
    oauthDisplayName: r.oauth_display_name,
    oauthEmails: r.oauth_emails,
    oauthPhotos: r.oauth_photos,
    oauthMetadata: r.oauth_metadata,
    oauthAccessTokenSealed: r.oauth_access_token_sealed ?? null,
    oauthRefreshTokenSealed: r.oauth_refresh_token_sealed ?? null,
    oauthAccessTokenExpiresAt: toDate(r.oauth_access_token_expires_at),
    signInEnabled: r.sign_in_enabled,
    verifiedAt: toDate(r.verified_at)!,
    lastSelectedAt: toDate(r.last_selected_at),
    previousUserIds: r.previous_user_ids ?? [],
  };
}

export function toSession(r: Record<string, any>): SessionRecord {
  return { id: r.id, createdAt: toDate(r.created_at)!, ipAddress: r.ip_address, userAgent: r.user_agent, revokedAt: toDate(r.revoked_at), expiresAt: toDate(r.expires_at) };
}

export function toUser(r: Record<string, any>): UserRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    email: r.email,
    phoneNumber: r.phone_number,
    alias: r.alias,
    firstName: r.first_name,
    lastName: r.last_name,
    username: r.username,
    jobTitle: r.job_title,
    country: r.country,
    team: r.team,
    tShirtSize: r.t_shirt_size,
    policiesConsent: r.policies_consent,
    metadata: r.metadata,
    externalUserId: r.external_user_id ?? null,
    lastVerifiedCredentialId: r.last_verified_credential_id ?? null,
    mfaBackupCodeAcknowledgement: r.mfa_backup_code_acknowledgement ?? null,
    firstVisit: toDate(r.first_visit),
    lastVisit: toDate(r.last_visit),
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}
