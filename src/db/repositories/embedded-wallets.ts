import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";

/**
 * Queries of embedded wallet pregeneration: finding the user an identifier names (locking its row), creating
 * one with its verified credential, and the sealed key of each pregenerated wallet. Every function takes
 * the environment and filters by it.
 */

export interface EmbeddedWalletKeyRecord {
  walletId: string;
  keyFamily: "evm" | "solana";
  publicKey: string;
  privateKeySealed: string;
}

/** The oauth_provider value of decentralized-social accounts. */
export const DECENTRALIZED_SOCIAL = "decentralizedSocial";

const LIVE_USER = "u.environment_id = $1 AND u.deleted_at IS NULL";

/** The live user with this e-mail (case-insensitive), its row locked for the transaction. */
export async function lockUserByEmail(q: Queryable, environmentId: string, email: string): Promise<string | null> {
  const row = await q.oneOrNone(`SELECT u.id FROM users u WHERE ${LIVE_USER} AND lower(u.email) = lower($2) FOR UPDATE`, [
    environmentId,
    email,
  ]);
  return row?.id ?? null;
}

export async function lockUserByPhone(q: Queryable, environmentId: string, phoneNumber: string): Promise<string | null> {
  const row = await q.oneOrNone(`SELECT u.id FROM users u WHERE ${LIVE_USER} AND u.phone_number = $2 FOR UPDATE`, [
    environmentId,
    phoneNumber,
  ]);
  return row?.id ?? null;
}

export async function lockUserByExternalId(q: Queryable, environmentId: string, externalUserId: string): Promise<string | null> {
  const row = await q.oneOrNone(`SELECT u.id FROM users u WHERE ${LIVE_USER} AND u.external_user_id = $2 FOR UPDATE`, [
    environmentId,
    externalUserId,
  ]);
  return row?.id ?? null;
}

/** The live user holding the decentralized-social account, by its fid or else (no fid given) its username. */
export async function lockUserBySocialAccount(
  q: Queryable,
  environmentId: string,
  account: { fid: string | null; username: string | null },
): Promise<string | null> {
  const row = await q.oneOrNone(
    `SELECT u.id FROM users u
     JOIN verified_credentials c ON c.environment_id = u.environment_id AND c.user_id = u.id
     WHERE ${LIVE_USER} AND c.format = 'oauth' AND c.oauth_provider = $2 AND c.deleted_at IS NULL
       AND CASE WHEN $3::text IS NOT NULL THEN c.oauth_account_id = $3 ELSE lower(c.oauth_username) = lower($4) END
     ORDER BY c.created_at LIMIT 1
     FOR UPDATE OF u`,
    [environmentId, DECENTRALIZED_SOCIAL, account.fid, account.username],
  );
  return row?.id ?? null;
}

/** A new user named by one identifier (the others null). */
export async function insertIdentifiedUser(
  q: Queryable,
  environmentId: string,
  u: { email?: string | null; phoneNumber?: string | null; externalUserId?: string | null; username?: string | null },
): Promise<string> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO users (id, environment_id, email, phone_number, external_user_id, username) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, environmentId, u.email ?? null, u.phoneNumber ?? null, u.externalUserId ?? null, u.username ?? null],
  );
  return id;
}

export type NewCredential =
  | { format: "email"; email: string }
  | { format: "phoneNumber"; phoneNumber: string }
  | { format: "oauth"; provider: string; accountId: string | null; username: string | null };

export async function insertVerifiedCredential(q: Queryable, environmentId: string, userId: string, c: NewCredential): Promise<string> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO verified_credentials (id, environment_id, user_id, format, email, phone_number, oauth_provider, oauth_account_id,
                                       oauth_username)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      environmentId,
      userId,
      c.format,
      c.format === "email" ? c.email : null,
      c.format === "phoneNumber" ? c.phoneNumber : null,
      c.format === "oauth" ? c.provider : null,
      c.format === "oauth" ? c.accountId : null,
      c.format === "oauth" ? c.username : null,
    ],
  );
  return id;
}

export async function insertEmbeddedWalletKey(q: Queryable, environmentId: string, k: EmbeddedWalletKeyRecord): Promise<void> {
  await q.none(
    `INSERT INTO embedded_wallet_keys (id, environment_id, wallet_id, key_family, public_key, private_key_sealed)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [randomUUID(), environmentId, k.walletId, k.keyFamily, k.publicKey, k.privateKeySealed],
  );
}
