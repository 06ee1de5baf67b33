import type { Queryable } from "../db.js";

/**
 * The lookups of the sign-in pipeline (src/domain/sign-in): who owns a proven credential, and which
 * enabled allowlists name an identifier.
 */

/** E.164 of a stored phone credential (stored either as E.164 or as national digits plus country code). */
const PHONE_E164 = "(CASE WHEN c.phone_number LIKE '+%' THEN c.phone_number ELSE '+' || coalesce(c.phone_country_code, '') || c.phone_number END)";

/** The live wallet at `address` under any of `chains` (the names of one chain family, e.g. EVM and ETH). */
export async function findWalletOwner(
  q: Queryable,
  environmentId: string,
  chains: readonly string[],
  address: string,
): Promise<{ userId: string; walletId: string; credentialId: string } | null> {
  const row = await q.oneOrNone(
    `SELECT w.user_id, w.id, w.credential_id FROM wallets w JOIN users u ON u.id = w.user_id AND u.environment_id = w.environment_id
     WHERE w.environment_id = $1 AND w.chain = ANY($2) AND w.address = $3 AND w.deleted_at IS NULL AND u.deleted_at IS NULL
     LIMIT 1`,
    [environmentId, chains, address],
  );
  return row ? { userId: row.user_id, walletId: row.id, credentialId: row.credential_id } : null;
}

export async function findEmailOwner(q: Queryable, environmentId: string, email: string): Promise<{ userId: string; credentialId: string | null } | null> {
  const row = await q.oneOrNone(
    `SELECT c.user_id, c.id FROM verified_credentials c JOIN users u ON u.id = c.user_id AND u.environment_id = c.environment_id
     WHERE c.environment_id = $1 AND c.format = 'email' AND lower(c.email) = lower($2) AND c.deleted_at IS NULL AND u.deleted_at IS NULL
     UNION ALL
     SELECT u.id, NULL FROM users u WHERE u.environment_id = $1 AND lower(u.email) = lower($2) AND u.deleted_at IS NULL
     LIMIT 1`,
    [environmentId, email],
  );
  return row ? { userId: row.user_id, credentialId: row.id } : null;
}

export async function findPhoneOwner(q: Queryable, environmentId: string, e164: string): Promise<{ userId: string; credentialId: string | null } | null> {
  const row = await q.oneOrNone(
    `SELECT c.user_id, c.id FROM verified_credentials c JOIN users u ON u.id = c.user_id AND u.environment_id = c.environment_id
     WHERE c.environment_id = $1 AND c.format = 'phoneNumber' AND ${PHONE_E164} = $2 AND c.deleted_at IS NULL AND u.deleted_at IS NULL
     UNION ALL
     SELECT u.id, NULL FROM users u WHERE u.environment_id = $1 AND u.phone_number = $2 AND u.deleted_at IS NULL
     LIMIT 1`,
    [environmentId, e164],
  );
  return row ? { userId: row.user_id, credentialId: row.id } : null;
}

/** The live user holding this OAuth account (provider + the provider's account id), with the credential. */
export async function findOauthOwner(q: Queryable, environmentId: string, provider: string, accountId: string): Promise<{ userId: string; credentialId: string } | null> {
  const row = await q.oneOrNone(
    `SELECT c.user_id, c.id FROM verified_credentials c JOIN users u ON u.id = c.user_id AND u.environment_id = c.environment_id
     WHERE c.environment_id = $1 AND c.format = 'oauth' AND c.oauth_provider = $2 AND c.oauth_account_id = $3
       AND c.deleted_at IS NULL AND u.deleted_at IS NULL
     LIMIT 1`,
    [environmentId, provider, accountId],
  );
  return row ? { userId: row.user_id, credentialId: row.id } : null;
}

/** The live user an external identity provider's subject names (users.external_user_id). */
export async function findExternalUser(q: Queryable, environmentId: string, externalUserId: string): Promise<string | null> {
  const row = await q.oneOrNone("SELECT id FROM users WHERE environment_id = $1 AND external_user_id = $2 AND deleted_at IS NULL", [environmentId, externalUserId]);
  return row?.id ?? null;
}

/** Whether the user is live in the environment (not deleted). */
export async function isLiveUser(q: Queryable, environmentId: string, userId: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM users WHERE environment_id = $1 AND id = $2 AND deleted_at IS NULL", [environmentId, userId])) !== null;
}

/**
 * Names the external subject on the user; false when the user already carries another one (a user has one
 * external identity; the unique index refuses a second user with the same one).
 */
export async function setExternalUserId(q: Queryable, environmentId: string, userId: string, externalUserId: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `UPDATE users SET external_user_id = $3, updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND (external_user_id IS NULL OR external_user_id = $3) RETURNING id`,
    [environmentId, userId, externalUserId],
  );
  return row !== null;
}

/** After a sign-in or link: the credential used last (when it is a stored one), and the visit. */
export async function recordUserVisit(q: Queryable, environmentId: string, userId: string, credentialId: string | null): Promise<void> {
  await q.none(
    `UPDATE users SET last_verified_credential_id = coalesce($3, last_verified_credential_id), last_visit = now(), first_visit = coalesce(first_visit, now())
     WHERE environment_id = $1 AND id = $2`,
    [environmentId, userId, credentialId],
  );
}

/** Sets the user's primary e-mail / phone when they have none (a linked one becomes it). */
export async function fillContact(q: Queryable, environmentId: string, userId: string, column: "email" | "phone_number", value: string): Promise<void> {
  await q.none(`UPDATE users SET ${column} = $3, updated_at = now() WHERE environment_id = $1 AND id = $2 AND ${column} IS NULL`, [
    environmentId,
    userId,
    value,
  ]);
}

/** The identifiers allowlists may name that a user holds: wallet addresses, e-mails (and their domains), phones. */
export async function userAllowlistIdentifiers(q: Queryable, environmentId: string, userId: string): Promise<{ type: string; value: string }[]> {
  return q.any(
    `SELECT 'walletPublicKey' AS type, address AS value FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL
     UNION SELECT 'email', lower(email) FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND format = 'email' AND deleted_at IS NULL
     UNION SELECT 'emailDomain', lower(split_part(email, '@', 2)) FROM verified_credentials WHERE environment_id = $1 AND user_id = $2 AND format = 'email' AND deleted_at IS NULL
     UNION SELECT 'phoneNumber', ${PHONE_E164} FROM verified_credentials c WHERE environment_id = $1 AND user_id = $2 AND format = 'phoneNumber' AND deleted_at IS NULL`,
    [environmentId, userId],
  );
}

export interface AllowlistMatch {
  outcome: "siteAccess" | "scope" | "block";
  scope: string | null;
  /** Whether one of the identifiers is on the list. */
  matched: boolean;
}

/** Every enabled allowlist of the environment, and whether it names one of the identifiers. */
export async function enabledAllowlistMatches(
  q: Queryable,
  environmentId: string,
  identifiers: { type: string; value: string }[],
): Promise<AllowlistMatch[]> {
  const rows = await q.any(
    `SELECT a.outcome, a.scope, EXISTS (
        SELECT 1 FROM allowlist_entries e, jsonb_to_recordset($2::jsonb) AS i(type text, value text)
        WHERE e.allowlist_id = a.id AND e.environment_id = a.environment_id AND e.type = i.type AND e.value = i.value
      ) AS matched
     FROM allowlists a WHERE a.environment_id = $1 AND a.enabled_at IS NOT NULL`,
    [environmentId, JSON.stringify(identifiers)],
  );
  return rows.map((r) => ({ outcome: r.outcome, scope: r.scope, matched: r.matched }));
}

/** Whether the environment has a provider of `kind` and whether it is enabled (null: none configured). */
export async function providerEnabled(q: Queryable, environmentId: string, kind: string): Promise<boolean | null> {
  const row = await q.oneOrNone(
    "SELECT bool_or(enabled_at IS NOT NULL) AS enabled FROM providers WHERE environment_id = $1 AND provider = $2 HAVING count(*) > 0",
    [environmentId, kind],
  );
  return row ? row.enabled : null;
}
