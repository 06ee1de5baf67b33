import type { Queryable } from "../db.js";

/** The sealed provider tokens of one OAuth account (src/db/migrations/029_oauth_accounts.sql). */
export interface SealedOauthTokens {
  accessTokenSealed: string;
  refreshTokenSealed: string | null;
  idTokenSealed: string | null;
  scope: string | null;
  accessTokenExpiresAt: Date | null;
}

/** Replaces the account's tokens (a new sign-in brings new ones). */
export async function saveOauthTokens(q: Queryable, environmentId: string, credentialId: string, t: SealedOauthTokens): Promise<void> {
  await q.none(
    `INSERT INTO oauth_account_tokens (credential_id, environment_id, access_token_sealed, refresh_token_sealed, id_token_sealed, scope, access_token_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (credential_id) DO UPDATE SET access_token_sealed = EXCLUDED.access_token_sealed,
       refresh_token_sealed = COALESCE(EXCLUDED.refresh_token_sealed, oauth_account_tokens.refresh_token_sealed),
       id_token_sealed = EXCLUDED.id_token_sealed, scope = EXCLUDED.scope,
       access_token_expires_at = EXCLUDED.access_token_expires_at, updated_at = now()`,
    [credentialId, environmentId, t.accessTokenSealed, t.refreshTokenSealed, t.idTokenSealed, t.scope, t.accessTokenExpiresAt],
  );
}

/**
 * The sealed access token of an OAuth account, only when the account is a live credential of this user:
 * another user's account reads as absent.
 */
export async function findOwnOauthTokens(
  q: Queryable,
  environmentId: string,
  userId: string,
  credentialId: string,
): Promise<SealedOauthTokens | null> {
  const row = await q.oneOrNone(
    `SELECT t.* FROM oauth_account_tokens t
       JOIN verified_credentials c ON c.id = t.credential_id
      WHERE t.environment_id = $1 AND c.environment_id = $1 AND c.user_id = $2 AND c.id = $3
        AND c.format = 'oauth' AND c.deleted_at IS NULL`,
    [environmentId, userId, credentialId],
  );
  if (!row) return null;
  return {
    accessTokenSealed: row.access_token_sealed,
    refreshTokenSealed: row.refresh_token_sealed,
    idTokenSealed: row.id_token_sealed,
    scope: row.scope,
    accessTokenExpiresAt: row.access_token_expires_at,
  };
}

/** Whether the URL is one of the environment's deeplink URLs (stored normalized). */
export async function isDeeplinkUrl(q: Queryable, environmentId: string, url: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM deeplink_urls WHERE environment_id = $1 AND url = $2", [environmentId, url])) !== null;
}
