import type { Queryable } from "../db.js";

/**
 * The operator CLI's reads across tenants (src/cli/*): what no API call may see at once, since every API
 * call is scoped to one organization or environment. Read-only; changes go through the domain.
 */

export interface OrganizationSummary {
  id: string;
  name: string;
  createdAt: Date;
  projects: number;
  environments: number;
  members: number;
}

const ORGANIZATION_SUMMARY = `
  SELECT o.id, o.name, o.created_at,
    (SELECT count(*) FROM projects p WHERE p.organization_id = o.id)::int AS projects,
    (SELECT count(*) FROM environments e WHERE e.organization_id = o.id)::int AS environments,
    (SELECT count(*) FROM members m WHERE m.organization_id = o.id)::int AS members
  FROM organizations o`;

const toOrganization = (r: Record<string, any>): OrganizationSummary => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  projects: r.projects,
  environments: r.environments,
  members: r.members,
});

export async function listOrganizationSummaries(q: Queryable): Promise<OrganizationSummary[]> {
  return (await q.any(`${ORGANIZATION_SUMMARY} ORDER BY o.created_at, o.id`)).map(toOrganization);
}

export async function findOrganizationSummary(q: Queryable, organizationId: string): Promise<OrganizationSummary | null> {
  const row = await q.oneOrNone(`${ORGANIZATION_SUMMARY} WHERE o.id = $1`, [organizationId]);
  return row ? toOrganization(row) : null;
}

export interface EnvironmentSummary {
  id: string;
  name: "live" | "sandbox";
  organizationId: string;
  organizationName: string;
  projectId: string;
  projectName: string;
  createdAt: Date;
  users: number;
  tokens: number;
  webhooks: number;
}

const ENVIRONMENT_SUMMARY = `
  SELECT e.id, e.name, e.organization_id, o.name AS organization_name, e.project_id, p.name AS project_name, e.created_at,
    (SELECT count(*) FROM users u WHERE u.environment_id = e.id AND u.deleted_at IS NULL)::int AS users,
    (SELECT count(*) FROM api_tokens t WHERE t.environment_id = e.id AND t.deleted_at IS NULL)::int AS tokens,
    (SELECT count(*) FROM webhooks w WHERE w.environment_id = e.id)::int AS webhooks
  FROM environments e JOIN projects p ON p.id = e.project_id JOIN organizations o ON o.id = e.organization_id`;

const toEnvironment = (r: Record<string, any>): EnvironmentSummary => ({
  id: r.id,
  name: r.name,
  organizationId: r.organization_id,
  organizationName: r.organization_name,
  projectId: r.project_id,
  projectName: r.project_name,
  createdAt: r.created_at,
  users: r.users,
  tokens: r.tokens,
  webhooks: r.webhooks,
});

export async function listEnvironmentSummaries(q: Queryable, organizationId?: string): Promise<EnvironmentSummary[]> {
  const rows = await q.any(`${ENVIRONMENT_SUMMARY} WHERE ($1::uuid IS NULL OR e.organization_id = $1) ORDER BY o.created_at, o.id, p.created_at, p.id, e.name`, [
    organizationId ?? null,
  ]);
  return rows.map(toEnvironment);
}

export async function findEnvironmentSummary(q: Queryable, environmentId: string): Promise<EnvironmentSummary | null> {
  const row = await q.oneOrNone(`${ENVIRONMENT_SUMMARY} WHERE e.id = $1`, [environmentId]);
  return row ? toEnvironment(row) : null;
}

/** What lives in an environment beyond the summary's counts (`sigil environments show`). */
export interface EnvironmentCounts {
  liveSessions: number;
  wallets: number;
  enabledWebhooks: number;
  pendingWebhookMessages: number;
  failedWebhookMessages: number;
}

export async function environmentCounts(q: Queryable, environmentId: string): Promise<EnvironmentCounts> {
  const r = await q.one(
    `SELECT
       (SELECT count(*) FROM sessions s WHERE s.environment_id = $1 AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now()))::int AS live_sessions,
       (SELECT count(*) FROM wallets w WHERE w.environment_id = $1 AND w.deleted_at IS NULL)::int AS wallets,
       (SELECT count(*) FROM webhooks w WHERE w.environment_id = $1 AND w.enabled_at IS NOT NULL)::int AS enabled_webhooks,
       (SELECT count(*) FROM webhook_messages m WHERE m.environment_id = $1 AND m.status = 'pending')::int AS pending_messages,
       (SELECT count(*) FROM webhook_messages m WHERE m.environment_id = $1 AND m.status = 'failed')::int AS failed_messages`,
    [environmentId],
  );
  return {
    liveSessions: r.live_sessions,
    wallets: r.wallets,
    enabledWebhooks: r.enabled_webhooks,
    pendingWebhookMessages: r.pending_messages,
    failedWebhookMessages: r.failed_messages,
  };
}

/** Whose a token is: an environment's (organizationId and environmentId) or an account's (member token). */
export interface TokenOwner {
  id: string;
  organizationId: string | null;
  environmentId: string | null;
  accountId: string | null;
}

export async function findTokenOwner(q: Queryable, tokenId: string): Promise<TokenOwner | null> {
  const row = await q.oneOrNone("SELECT id, organization_id, environment_id, account_id FROM api_tokens WHERE id = $1 AND deleted_at IS NULL", [tokenId]);
  return row ? { id: row.id, organizationId: row.organization_id, environmentId: row.environment_id, accountId: row.account_id } : null;
}

export interface UserSummary {
  id: string;
  email: string | null;
  phoneNumber: string | null;
  createdAt: Date;
  lastVisit: Date | null;
  liveSessions: number;
  wallets: string[];
}

export type UserLookup = { email: string } | { phone: string } | { wallet: string } | { id: string };

/**
 * Users of an environment by one identifier (live users only). A wallet address matches case-insensitively:
 * EVM addresses are written in mixed case (checksums) and stored as the user gave them.
 */
export async function findUserSummaries(q: Queryable, environmentId: string, by: UserLookup): Promise<UserSummary[]> {
  const [condition, value] =
    "email" in by
      ? ["lower(u.email) = lower($2)", by.email]
      : "phone" in by
        ? ["u.phone_number = $2", by.phone]
        : "wallet" in by
          ? ["EXISTS (SELECT 1 FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL AND lower(w.address) = lower($2))", by.wallet]
          : ["u.id = $2::uuid", by.id];
  const rows = await q.any(
    `SELECT u.id, u.email, u.phone_number, u.created_at, u.last_visit,
       (SELECT count(*) FROM sessions s WHERE s.environment_id = u.environment_id AND s.user_id = u.id AND s.revoked_at IS NULL
          AND (s.expires_at IS NULL OR s.expires_at > now()))::int AS live_sessions,
       ARRAY(SELECT w.chain || ':' || w.address FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL
          ORDER BY w.created_at) AS wallets
     FROM users u WHERE u.environment_id = $1 AND u.deleted_at IS NULL AND ${condition} ORDER BY u.created_at, u.id`,
    [environmentId, value],
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    phoneNumber: r.phone_number,
    createdAt: r.created_at,
    lastVisit: r.last_visit,
    liveSessions: r.live_sessions,
    wallets: r.wallets,
  }));
}

export interface BacklogRow {
  environmentId: string;
  webhookId: string;
  url: string;
  enabled: boolean;
  pending: number;
  failed: number;
  delivered: number;
  cancelled: number;
  /** When the oldest pending message was created: how far behind the endpoint is. */
  oldestPendingAt: Date | null;
}

/** Messages per state per endpoint, endpoints with a pending or failed message first. */
export async function webhookBacklog(q: Queryable, environmentId?: string): Promise<BacklogRow[]> {
  const rows = await q.any(
    `SELECT w.environment_id, w.id AS webhook_id, w.url, w.enabled_at IS NOT NULL AS enabled,
       count(*) FILTER (WHERE m.status = 'pending')::int AS pending,
       count(*) FILTER (WHERE m.status = 'failed')::int AS failed,
       count(*) FILTER (WHERE m.status = 'delivered')::int AS delivered,
       count(*) FILTER (WHERE m.status = 'cancelled')::int AS cancelled,
       min(m.created_at) FILTER (WHERE m.status = 'pending') AS oldest_pending_at
     FROM webhooks w LEFT JOIN webhook_messages m ON m.environment_id = w.environment_id AND m.webhook_id = w.id
     WHERE ($1::uuid IS NULL OR w.environment_id = $1)
     GROUP BY w.environment_id, w.id
     ORDER BY (count(*) FILTER (WHERE m.status IN ('pending', 'failed'))) DESC, w.environment_id, w.created_at, w.id`,
    [environmentId ?? null],
  );
  return rows.map((r) => ({
    environmentId: r.environment_id,
    webhookId: r.webhook_id,
    url: r.url,
    enabled: r.enabled,
    pending: r.pending,
    failed: r.failed,
    delivered: r.delivered,
    cancelled: r.cancelled,
    oldestPendingAt: r.oldest_pending_at,
  }));
}

/** The failed messages of an environment (optionally one endpoint, created since a time), oldest first. */
export async function failedWebhookMessages(
  q: Queryable,
  environmentId: string,
  opts: { webhookId?: string; since?: Date },
): Promise<{ id: string; webhookId: string }[]> {
  const rows = await q.any(
    `SELECT id, webhook_id FROM webhook_messages
     WHERE environment_id = $1 AND status = 'failed' AND ($2::uuid IS NULL OR webhook_id = $2) AND ($3::timestamptz IS NULL OR created_at >= $3)
     ORDER BY created_at, id`,
    [environmentId, opts.webhookId ?? null, opts.since ?? null],
  );
  return rows.map((r) => ({ id: r.id, webhookId: r.webhook_id }));
}
