-- Delivery engine (src/domain/webhooks/dispatcher.ts, src/workflows/webhook-delivery.ts).
-- workflow_seen_at: when the message's delivery workflow first ran. The dispatcher (re)starts the workflow of
-- a pending message that still has none after a few seconds (a crash between commit and start), which is a
-- no-op join when the workflow exists.
ALTER TABLE webhook_messages ADD COLUMN workflow_seen_at timestamptz;
CREATE INDEX webhook_messages_orphan_idx ON webhook_messages (created_at, id) WHERE status = 'pending' AND workflow_seen_at IS NULL;
-- Subscriptions the dispatcher matches per event: enabled endpoints of an environment.
CREATE INDEX webhooks_enabled_idx ON webhooks (environment_id) WHERE enabled_at IS NOT NULL;
