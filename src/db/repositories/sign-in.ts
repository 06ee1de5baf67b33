import { prepared, type Queryable } from "../db.js";
import type { GateRuleData } from "./gates.js";

/**
 * The lookups of the sign-in pipeline (src/domain/sign-in): who owns a proven credential, and which
 * enabled allowlists name an identifier, and which gates are on.
 */

/** E.164 of a stored phone credential (stored either as E.164 or as national digits plus country code). */
const PHONE_E164 = "(CASE WHEN c.phone_number LIKE '+%' THEN c.phone_number ELSE '+' || coalesce(c.phone_country_code, '') || c.phone_number END)";

/**
 * Whether the user holding the row aliased `alias` is live, as a subquery per matched row (one primary-key
 * read): a join let the planner drive from the users of the environment, filtering each one's rows, while
 * the tables were young and their statistics said one row (10-15 ms a lookup before autovacuum's first
 * ANALYZE); a scalar subquery is never turned into a join, so the credential's own index always leads.
 */
const OWNER_LIVE = (alias: string) => `(SELECT u.deleted_at IS NULL FROM users u WHERE u.environment_id = $1 AND u.id = ${alias}.user_id)`;

const FIND_WALLET_OWNER = prepared(
  "find-wallet-owner",
  `SELECT w.user_id, w.id, w.credential_id FROM wallets w
     WHERE w.environment_id = $1 AND w.chain IN ($2, $3) AND w.address = $4 AND w.deleted_at IS NULL AND ${OWNER_LIVE("w")}
     LIMIT 1`,
);

/**
 * The live wallet at `address` under any of `chains` (the one or two names of one chain family, e.g. EVM and
 * ETH). Two placeholders rather than `= ANY($2)`: against an array of unknown length Postgres found the
 * generic plan dearer than a custom one and planned every call again (0.3 ms, six times the lookup).
 */
export async function findWalletOwner(
  q: Queryable,
  environmentId: string,
  chains: readonly string[],
  address: string,
): Promise<{ userId: string; walletId: string; credentialId: string } | null> {
  const [first, second = first] = chains;
  if (!first || chains.length > 2) throw new Error("a wallet lookup names one or two chain names");
  const row = await q.oneOrNone(FIND_WALLET_OWNER([environmentId, first, second, address]));
  return row ? { userId: row.user_id, walletId: row.id, credentialId: row.credential_id } : null;
}

const FIND_EMAIL_OWNER = prepared(
  "find-email-owner",
  `SELECT c.user_id, c.id FROM verified_credentials c
     WHERE c.environment_id = $1 AND c.format = 'email' AND lower(c.email) = lower($2) AND c.deleted_at IS NULL AND ${OWNER_LIVE("c")}
     UNION ALL
     SELECT u.id, NULL FROM users u WHERE u.environment_id = $1 AND lower(u.email) = lower($2) AND u.deleted_at IS NULL
     LIMIT 1`,
);

export async function findEmailOwner(q: Queryable, environmentId: string, email: string): Promise<{ userId: string; credentialId: string | null } | null> {
  const row = await q.oneOrNone(FIND_EMAIL_OWNER([environmentId, email]));
  return row ? { userId: row.user_id, credentialId: row.id } : null;
}

const FIND_PHONE_OWNER = prepared(
  "find-phone-owner",
  `SELECT c.user_id, c.id FROM verified_credentials c
     WHERE c.environment_id = $1 AND c.format = 'phoneNumber' AND ${PHONE_E164} = $2 AND c.deleted_at IS NULL AND ${OWNER_LIVE("c")}
     UNION ALL
     SELECT u.id, NULL FROM users u WHERE u.environment_id = $1 AND u.phone_number = $2 AND u.deleted_at IS NULL
     LIMIT 1`,
);

export async function findPhoneOwner(q: Queryable, environmentId: string, e164: string): Promise<{ userId: string; credentialId: string | null } | null> {
  const row = await q.oneOrNone(FIND_PHONE_OWNER([environmentId, e164]));
  return row ? { userId: row.user_id, credentialId: row.id } : null;
}

const FIND_OAUTH_OWNER = prepared(
  "find-oauth-owner",
  `SELECT c.user_id, c.id FROM verified_credentials c
     WHERE c.environment_id = $1 AND c.format = 'oauth' AND c.oauth_provider = $2 AND c.oauth_account_id = $3
       AND c.deleted_at IS NULL AND ${OWNER_LIVE("c")}
     LIMIT 1`,
);

/** The live user holding this OAuth account (provider + the provider's account id), with the credential. */
export async function findOauthOwner(q: Queryable, environmentId: string, provider: string, accountId: string): Promise<{ userId: string; credentialId: string } | null> {
  const row = await q.oneOrNone(FIND_OAUTH_OWNER([environmentId, provider, accountId]));
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

/** An enabled token gate, judged by the chain (src/domain/gates/enforcement.ts), not by the database. */
export interface EnabledGate {
  id: string;
  outcome: "siteAccess" | "scope" | "block";
  scope: string | null;
  rules: GateRuleData[];
}

/**
 * The environment's enabled allowlists (with whether they name one of the identifiers) and its enabled gates,
 * in one statement: a sign-in pays for gates only when the environment has some (the hot path's statements
 * are counted, test/e2e/hot-path-statements.test.ts).
 */
const ENABLED_ACCESS_RULES = prepared(
  "enabled-access-rules",
  `SELECT 'allowlist' AS kind, a.id, a.outcome, a.scope, EXISTS (
        SELECT 1 FROM allowlist_entries e, jsonb_to_recordset($2::jsonb) AS i(type text, value text)
        WHERE e.allowlist_id = a.id AND e.environment_id = a.environment_id AND e.type = i.type AND e.value = i.value
      ) AS matched, NULL::jsonb AS rules
     FROM allowlists a WHERE a.environment_id = $1 AND a.enabled_at IS NOT NULL
   UNION ALL
   SELECT 'gate', g.id, g.outcome, g.scope, false, g.rules FROM gates g WHERE g.environment_id = $1 AND g.enabled_at IS NOT NULL`,
);

/** Every enabled allowlist of the environment (and whether it names one of the identifiers), and every enabled gate. */
export async function enabledAccessRules(
  q: Queryable,
  environmentId: string,
  identifiers: { type: string; value: string }[],
): Promise<{ lists: AllowlistMatch[]; gates: EnabledGate[] }> {
  const rows = await q.any(ENABLED_ACCESS_RULES([environmentId, JSON.stringify(identifiers)]));
  return {
    lists: rows.filter((r) => r.kind === "allowlist").map((r) => ({ outcome: r.outcome, scope: r.scope, matched: r.matched })),
    gates: rows.filter((r) => r.kind === "gate").map((r) => ({ id: r.id, outcome: r.outcome, scope: r.scope, rules: r.rules })),
  };
}

const PROVIDER_ENABLED = prepared(
  "provider-enabled",
  "SELECT bool_or(enabled_at IS NOT NULL) AS enabled FROM providers WHERE environment_id = $1 AND provider = $2 HAVING count(*) > 0",
);

/** Whether the environment has a provider of `kind` and whether it is enabled (null: none configured). */
export async function providerEnabled(q: Queryable, environmentId: string, kind: string): Promise<boolean | null> {
  const row = await q.oneOrNone(PROVIDER_ENABLED([environmentId, kind]));
  return row ? row.enabled : null;
}
