import { prepared, type Queryable } from "../db.js";

/**
 * SQL of the wallet sign-in flows that change who holds a credential (src/domain/wallet-sign-in): unlink,
 * transfer and merge. Every statement is scoped to the environment; the callers hold the users' locks.
 */

const FIND_PROOF_RULES = prepared(
  "find-proof-rules",
  `SELECT e.settings, ARRAY(SELECT o.origin FROM origins o WHERE o.environment_id = e.id) AS origins FROM environments e WHERE e.id = $1`,
);

/**
 * What a wallet proof is checked against, in one read: the environment's stored settings (its chains) and
 * its origin patterns (the domains its sign-in messages may name). Null for an unknown environment.
 */
export async function findProofRules(q: Queryable, environmentId: string): Promise<{ settings: Record<string, unknown>; origins: string[] } | null> {
  const row = await q.oneOrNone(FIND_PROOF_RULES([environmentId]));
  return row ? { settings: row.settings ?? {}, origins: row.origins } : null;
}

/** One of the user's own live ways to sign in, by the id the client knows it by. */
export type OwnCredential =
  | { kind: "wallet"; walletId: string; credentialId: string; chain: string; address: string }
  | { kind: "credential"; credentialId: string; format: string; email: string | null; phoneE164: string | null };

/**
 * The user's live wallet or verified credential with this id: a wallet by its own id or by its
 * credential's id (the client sends either), any other credential by its id.
 */
export async function findOwnCredential(q: Queryable, environmentId: string, userId: string, id: string): Promise<OwnCredential | null> {
  const wallet = await q.oneOrNone(
    `SELECT id, credential_id, chain, address FROM wallets
     WHERE environment_id = $1 AND user_id = $2 AND (id = $3 OR credential_id = $3) AND deleted_at IS NULL`,
    [environmentId, userId, id],
  );
  if (wallet) return { kind: "wallet", walletId: wallet.id, credentialId: wallet.credential_id, chain: wallet.chain, address: wallet.address };
  const c = await q.oneOrNone(
    `SELECT c.id, c.format, c.email,
            CASE WHEN c.phone_number IS NULL THEN NULL WHEN c.phone_number LIKE '+%' THEN c.phone_number
                 ELSE '+' || coalesce(c.phone_country_code, '') || c.phone_number END AS phone_e164
     FROM verified_credentials c WHERE c.environment_id = $1 AND c.user_id = $2 AND c.id = $3 AND c.deleted_at IS NULL`,
    [environmentId, userId, id],
  );
  return c ? { kind: "credential", credentialId: c.id, format: c.format, email: c.email, phoneE164: c.phone_e164 } : null;
}

/** How many ways the user has to sign in: live wallets and live verified credentials enabled for sign-in. */
export async function countSignInCredentials(q: Queryable, environmentId: string, userId: string): Promise<number> {
  const row = await q.one(
    `SELECT (SELECT count(*) FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL)
          + (SELECT count(*) FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL AND sign_in_enabled)
            AS n`,
    [environmentId, userId],
  );
  return Number(row.n);
}

/** Soft-deletes one verified credential of the user (e-mail, phone, OAuth account). */
export async function deleteCredential(q: Queryable, environmentId: string, userId: string, credentialId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    "UPDATE verified_credentials SET deleted_at = now() WHERE environment_id = $1 AND user_id = $2 AND id = $3 AND deleted_at IS NULL RETURNING id",
    [environmentId, userId, credentialId],
  );
  return row !== null;
}

/**
 * Clears the user's profile e-mail / phone when it is the value of a removed credential: the profile value
 * also proves ownership at sign-in (src/db/repositories/sign-in.ts), so it must go with the credential.
 */
export async function clearContact(q: Queryable, environmentId: string, userId: string, column: "email" | "phone_number", value: string): Promise<void> {
  const match = column === "email" ? "lower(email) = lower($3)" : "phone_number = $3";
  await q.none(`UPDATE users SET ${column} = NULL, updated_at = now() WHERE environment_id = $1 AND id = $2 AND ${match}`, [environmentId, userId, value]);
}

/** Marks the wallet the user's selected (primary) one. False when it is not one of their live wallets. */
export async function selectWallet(q: Queryable, environmentId: string, userId: string, walletId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `UPDATE wallets SET last_selected_at = clock_timestamp() WHERE environment_id = $1 AND user_id = $2 AND (id = $3 OR credential_id = $3)
       AND deleted_at IS NULL RETURNING id`,
    [environmentId, userId, walletId],
  );
  return row !== null;
}

/** The live wallet with this address and who holds it, locked for the rest of the transaction. */
export async function lockWallet(q: Queryable, environmentId: string, walletId: string): Promise<{ walletId: string; userId: string } | null> {
  const row = await q.oneOrNone("SELECT id, user_id FROM wallets WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE", [
    environmentId,
    walletId,
  ]);
  return row ? { walletId: row.id, userId: row.user_id } : null;
}

/** Moves one wallet (and its custody HD wallet) to another user, remembering who held it. */
export async function moveWallet(q: Queryable, environmentId: string, walletId: string, fromUserId: string, toUserId: string): Promise<void> {
  const row = await q.oneOrNone(
    `UPDATE wallets SET user_id = $4, previous_user_ids = array_append(previous_user_ids, $3::uuid), last_selected_at = NULL, updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND user_id = $3 AND deleted_at IS NULL RETURNING custody_hd_wallet_id`,
    [environmentId, walletId, fromUserId, toUserId],
  );
  if (row?.custody_hd_wallet_id)
    await q.none("UPDATE custody_hd_wallets SET user_id = $3 WHERE environment_id = $1 AND id = $2", [environmentId, row.custody_hd_wallet_id, toUserId]);
}

/**
 * Moves every live wallet, custody HD wallet and verified credential of one user to another (a merge),
 * remembering who held them. Returns what moved.
 */
export async function moveAllCredentials(
  q: Queryable,
  environmentId: string,
  fromUserId: string,
  toUserId: string,
): Promise<{ wallets: { id: string; chain: string; address: string }[]; credentialIds: string[] }> {
  const wallets = await q.any(
    `UPDATE wallets SET user_id = $3, previous_user_ids = array_append(previous_user_ids, $2::uuid), last_selected_at = NULL, updated_at = now()
     WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING id, chain, address`,
    [environmentId, fromUserId, toUserId],
  );
  await q.none("UPDATE custody_hd_wallets SET user_id = $3 WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL", [
    environmentId,
    fromUserId,
    toUserId,
  ]);
  const credentials = await q.any(
    `UPDATE verified_credentials SET user_id = $3, previous_user_ids = array_append(previous_user_ids, $2::uuid)
     WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING id`,
    [environmentId, fromUserId, toUserId],
  );
  return { wallets: wallets.map((w) => ({ id: w.id, chain: w.chain, address: w.address })), credentialIds: credentials.map((c) => c.id) };
}
