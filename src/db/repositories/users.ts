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
}

export interface UserRecord extends Required<Omit<UserProfile, "policiesConsent" | "metadata">> {
  id: string;
  environmentId: string;
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
  signInEnabled: boolean;
  verifiedAt: Date;
  lastSelectedAt: Date | null;
}

export interface SessionRecord {
  id: string;
  createdAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  revokedAt: Date | null;
}

export async function insertUser(q: Queryable, environmentId: string, p: UserProfile): Promise<UserRecord> {
  const row = await q.one(
    `INSERT INTO users (id, environment_id, email, phone_number, alias, first_name, last_name, username, job_title,
                        country, team, t_shirt_size, policies_consent, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING *`,
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
    ],
  );
  return toUser(row);
}

export async function findUser(q: Queryable, environmentId: string, userId: string): Promise<UserRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL", [
    environmentId,
    userId,
  ]);
  return row ? toUser(row) : null;
}

export async function userExistsWithEmail(q: Queryable, environmentId: string, email: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM users WHERE environment_id = $1 AND lower(email) = lower($2) AND deleted_at IS NULL",
      [environmentId, email],
    )) !== null
  );
}

export async function userExistsWithPhone(q: Queryable, environmentId: string, phone: string): Promise<boolean> {
  return (
    (await q.oneOrNone("SELECT 1 FROM users WHERE environment_id = $1 AND phone_number = $2 AND deleted_at IS NULL", [
      environmentId,
      phone,
    ])) !== null
  );
}

export async function insertCredential(
  q: Queryable,
  environmentId: string,
  userId: string,
  c: Partial<Omit<CredentialRecord, "id" | "userId" | "verifiedAt" | "lastSelectedAt">> & { format: CredentialRecord["format"] },
): Promise<void> {
  await q.none(
    `INSERT INTO verified_credentials (id, environment_id, user_id, format, email, phone_number, phone_country_code,
       iso_country_code, oauth_provider, oauth_account_id, oauth_username, oauth_display_name, oauth_emails,
       oauth_photos, oauth_metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      randomUUID(),
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
    ],
  );
}

export async function oauthAccountTaken(q: Queryable, environmentId: string, provider: string, accountId: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM verified_credentials WHERE environment_id = $1 AND format = 'oauth' AND oauth_provider = $2 AND oauth_account_id = $3",
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
    signInEnabled: r.sign_in_enabled,
    verifiedAt: toDate(r.verified_at)!,
    lastSelectedAt: toDate(r.last_selected_at),
  };
}

export function toSession(r: Record<string, any>): SessionRecord {
  return { id: r.id, createdAt: toDate(r.created_at)!, ipAddress: r.ip_address, userAgent: r.user_agent, revokedAt: toDate(r.revoked_at) };
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
    firstVisit: toDate(r.first_visit),
    lastVisit: toDate(r.last_visit),
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}
