import type { Queryable } from "../db.js";

/** Webhook work not yet done, across environments (counts only: nothing that names a tenant). */
export interface WebhookBacklog {
  /** Events stored and not yet fanned out to their endpoints' messages. */
  undispatched: number;
  /** Pending messages never attempted, waiting for a retry, and in an actor's batch in flight now. */
  new: number;
  retrying: number;
  inFlight: number;
  /** Seconds since the oldest pending message was stored (0 when none). */
  oldestPendingSeconds: number;
}

/**
 * Read at each /metrics scrape. Both counts read only rows of partial indexes (undispatched events; pending
 * messages), which stay small while deliveries keep up: a growing backlog is what this is for.
 */
export async function webhookBacklog(q: Queryable): Promise<WebhookBacklog> {
  const row = await q.one<{ undispatched: string; new: string; retrying: string; in_flight: string; oldest: number | null }>(
    `SELECT (SELECT count(*) FROM events WHERE dispatched_at IS NULL) AS undispatched,
            count(*) FILTER (WHERE batch_claimed_at IS NULL AND next_attempt_at IS NULL) AS new,
            count(*) FILTER (WHERE batch_claimed_at IS NULL AND next_attempt_at IS NOT NULL) AS retrying,
            count(*) FILTER (WHERE batch_claimed_at IS NOT NULL) AS in_flight,
            extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS oldest
       FROM webhook_messages WHERE status = 'pending'`,
  );
  return {
    undispatched: Number(row.undispatched),
    new: Number(row.new),
    retrying: Number(row.retrying),
    inFlight: Number(row.in_flight),
    oldestPendingSeconds: row.oldest ?? 0,
  };
}
