import { createHash } from "node:crypto";
import type { Queryable } from "../../db/db.js";
import { deleteExpiredSpentCredentials, spendCredential, type SpentCredentialKind } from "../../db/repositories/spent-credentials.js";

/** Slack over a credential's expiry, for clocks of issuers and api processes that run a little behind. */
const CLOCK_SLACK_SECONDS = 120;
/** Expired marks each spend clears in its environment: the table stays as small as what is live. */
const CLEANUP_BATCH = 100;

/**
 * Spends a credential that proves itself (its signature checks without Sigil's help) and is accepted once:
 * true the first time, false ever after while it could still verify. The mark is a row in Postgres, not a
 * key in the store: a restart of `npm start` (in-process store) or a Redis that loses keys (no persistence,
 * eviction, FLUSHALL) must not make a spent credential sign in again. Only a digest is kept.
 */
export async function spendOnce(
  q: Queryable,
  environmentId: string,
  kind: SpentCredentialKind,
  credential: string,
  expiresAtSeconds: number,
): Promise<boolean> {
  const digest = createHash("sha256").update(credential).digest("base64url");
  const until = new Date((Math.max(expiresAtSeconds, Math.floor(Date.now() / 1000)) + CLOCK_SLACK_SECONDS) * 1000);
  const spent = await spendCredential(q, environmentId, kind, digest, until);
  // Opportunistic cleanup (no scheduler needed): each spend removes a few marks that guard nothing any more.
  await deleteExpiredSpentCredentials(q, environmentId, CLEANUP_BATCH);
  return spent;
}
