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

/**
 * The user's embedded wallet (live or soft-deleted), named by its id or by the id of its verified credential
 * (the id the client sees in the user's verifiedCredentials), or null.
 */
export async function findUserEmbeddedWallet(
  q: Queryable,
  environmentId: string,
  userId: string,
  walletId: string,
): Promise<{ id: string; chain: string; address: string; deleted: boolean; pregenerated: boolean; claimed: boolean } | null> {
  const row = await q.oneOrNone(
    `SELECT id, chain, address, deleted_at, pregenerated_at, claimed_at FROM wallets
     WHERE environment_id = $1 AND user_id = $2 AND (id = $3 OR credential_id = $3) AND provider = 'embeddedWallet'
     ORDER BY deleted_at NULLS FIRST LIMIT 1`,
    [environmentId, userId, walletId],
  );
  return row
    ? { id: row.id, chain: row.chain, address: row.address, deleted: row.deleted_at !== null, pregenerated: row.pregenerated_at !== null, claimed: row.claimed_at !== null }
    : null;
}

/** The ids of the user's live embedded wallets, oldest first. */
export async function userEmbeddedWalletIds(q: Queryable, environmentId: string, userId: string): Promise<string[]> {
  return q.map(
    `SELECT id FROM wallets WHERE environment_id = $1 AND user_id = $2 AND provider = 'embeddedWallet' AND deleted_at IS NULL ORDER BY created_at, id`,
    [environmentId, userId],
    (r) => r.id as string,
  );
}

/**
 * Sets the user's live embedded wallets on `from` (properties.version) to `to`; answers the wallets changed
 * (ids and chains). The `version = from` guard makes a concurrent second upgrade change nothing.
 */
export async function upgradeWalletVersions(
  q: Queryable,
  environmentId: string,
  userId: string,
  from: string,
  to: string,
): Promise<{ id: string; chain: string }[]> {
  return q.map(
    `UPDATE wallets SET properties = properties || jsonb_build_object('version', $4::text), updated_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND provider = 'embeddedWallet' AND deleted_at IS NULL AND properties->>'version' = $3
     RETURNING id, chain`,
    [environmentId, userId, from, to],
    (r) => ({ id: r.id as string, chain: r.chain as string }),
  );
}

/** Marks a pregenerated wallet of the user claimed; false when it is not (any more) claimable. One wins a race. */
export async function claimWallet(q: Queryable, environmentId: string, userId: string, walletId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `UPDATE wallets SET claimed_at = now(), updated_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND provider = 'embeddedWallet'
       AND pregenerated_at IS NOT NULL AND claimed_at IS NULL AND deleted_at IS NULL
     RETURNING id`,
    [environmentId, userId, walletId],
  );
  return row !== null;
}

/** Clears a soft-deleted embedded wallet's deletion (not its additional addresses: embedded wallets have none). */
export async function restoreWallet(q: Queryable, environmentId: string, userId: string, walletId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `UPDATE wallets SET deleted_at = NULL, updated_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND provider = 'embeddedWallet' AND deleted_at IS NOT NULL
     RETURNING id`,
    [environmentId, userId, walletId],
  );
  return row !== null;
}

/** The wallet's sealed key, or null (a wallet without a service-held key). */
export async function findEmbeddedWalletKey(q: Queryable, environmentId: string, walletId: string): Promise<EmbeddedWalletKeyRecord | null> {
  const row = await q.oneOrNone(
    `SELECT wallet_id, key_family, public_key, private_key_sealed FROM embedded_wallet_keys WHERE environment_id = $1 AND wallet_id = $2`,
    [environmentId, walletId],
  );
  return row ? { walletId: row.wallet_id, keyFamily: row.key_family, publicKey: row.public_key, privateKeySealed: row.private_key_sealed } : null;
}

/** Records a once-only activity (an export id, a signed body's hash); false when it was recorded before. */
export async function recordActivityOnce(
  q: Queryable,
  environmentId: string,
  a: { activity: string; userId: string; walletId: string | null },
): Promise<boolean> {
  const row = await q.oneOrNone(
    `INSERT INTO embedded_wallet_activities (environment_id, activity, user_id, wallet_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING activity`,
    [environmentId, a.activity, a.userId, a.walletId],
  );
  return row !== null;
}

/** The wallet's sealed passcode, made from `sealedIfNew` on first call (of two concurrent first calls one value wins). */
export async function ensurePasscode(q: Queryable, environmentId: string, walletId: string, sealedIfNew: string): Promise<string> {
  await q.none(
    `INSERT INTO embedded_wallet_passcodes (environment_id, wallet_id, passcode_sealed) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [environmentId, walletId, sealedIfNew],
  );
  const row = await q.one(`SELECT passcode_sealed FROM embedded_wallet_passcodes WHERE environment_id = $1 AND wallet_id = $2`, [environmentId, walletId]);
  return row.passcode_sealed;
}

export async function setRecoveryEmail(q: Queryable, environmentId: string, userId: string, email: string): Promise<void> {
  await q.none(
    `INSERT INTO embedded_wallet_recovery_emails (environment_id, user_id, email) VALUES ($1, $2, $3)
     ON CONFLICT (environment_id, user_id) DO UPDATE SET email = EXCLUDED.email, updated_at = now()`,
    [environmentId, userId, email],
  );
}

export async function findRecoveryEmail(q: Queryable, environmentId: string, userId: string): Promise<string | null> {
  const row = await q.oneOrNone(`SELECT email FROM embedded_wallet_recovery_emails WHERE environment_id = $1 AND user_id = $2`, [environmentId, userId]);
  return row?.email ?? null;
}
