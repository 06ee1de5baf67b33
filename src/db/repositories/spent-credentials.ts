import type { Queryable } from "../db.js";

/** What kinds of self-proving credentials are spent here (one namespace each). */
export type SpentCredentialKind = "external_jwt" | "chat_login" | "waas_backup_token";

/**
 * Marks a credential spent until `expiresAt`; false when it was spent already and that mark is still live.
 * One statement: of two concurrent spends of one credential exactly one inserts (the other meets the key).
 * A mark past its expiry is taken over: the credential it guarded has expired on its own by then.
 */
export async function spendCredential(q: Queryable, environmentId: string, kind: SpentCredentialKind, digest: string, expiresAt: Date): Promise<boolean> {
  const row = await q.oneOrNone(
    `INSERT INTO spent_credentials (environment_id, kind, digest, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (environment_id, kind, digest) DO UPDATE SET expires_at = EXCLUDED.expires_at
       WHERE spent_credentials.expires_at <= now()
     RETURNING 1 AS spent`,
    [environmentId, kind, digest, expiresAt],
  );
  return row !== null;
}

/** Deletes up to `limit` marks of the environment whose credentials have expired; answers how many. */
export async function deleteExpiredSpentCredentials(q: Queryable, environmentId: string, limit: number): Promise<number> {
  const r = await q.result(
    `DELETE FROM spent_credentials WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM spent_credentials WHERE environment_id = $1 AND expires_at <= now() LIMIT $2))`,
    [environmentId, limit],
  );
  return r.rowCount;
}
