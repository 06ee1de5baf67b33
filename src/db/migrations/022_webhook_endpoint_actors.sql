-- Webhook delivery by one actor workflow per endpoint (src/workflows/webhook-endpoint.ts): the actor
-- reads its endpoint's due messages from here in batches; a message's retry time is its next_attempt_at.
-- workflow_started_at keeps one meaning from now on: the message belongs to a per-message delivery workflow
-- of the earlier per-message delivery design (still registered so that those finish). New messages never get one, and
-- only messages without one are the actors'. Messages whose per-message workflow never ran (taken into the old
-- budget, then lost) go to the actors too.
UPDATE webhook_messages SET workflow_started_at = NULL WHERE status = 'pending' AND workflow_seen_at IS NULL;
-- batch_claimed_at: the message is in an actor's in-flight batch (cleared when the batch ends; a batch cut
-- short leaves it, and the endpoint's next batch takes the message again). Bounded per endpoint and per
-- environment like the running workflows were (WebhookSettings.maxRunningPerEndpoint / PerEnvironment).
ALTER TABLE webhook_messages ADD COLUMN batch_claimed_at timestamptz;
-- An actor's queue: its endpoint's pending messages, by when they are due (next_attempt_at, or created_at
-- before the first attempt).
CREATE INDEX webhook_messages_actor_queue_idx ON webhook_messages (webhook_id, (coalesce(next_attempt_at, created_at)), created_at, id)
  WHERE status = 'pending' AND workflow_started_at IS NULL;
-- The dispatcher's sweep: pending messages never taken by an actor (a crash between commit and signal).
CREATE INDEX webhook_messages_unseen_idx ON webhook_messages (created_at, id) WHERE status = 'pending' AND workflow_seen_at IS NULL;
-- Nothing waits for the per-message budget any more: the dispatcher no longer listens for it.
DROP TRIGGER webhook_messages_budget_freed ON webhook_messages;
DROP FUNCTION webhook_budget_freed();
DROP INDEX webhook_messages_waiting_idx;
DROP INDEX webhook_messages_orphan_idx;
