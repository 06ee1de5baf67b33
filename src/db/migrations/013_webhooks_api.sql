-- Webhooks and events API: the indexes behind its list filters, and when a client event happened.

-- SDK events carry the client's own timestamp; service events have none (created_at is when it was stored).
ALTER TABLE events ADD COLUMN occurred_at timestamptz;

-- GET /environments/{environmentId}/events?userId=...
CREATE INDEX events_environment_user_idx ON events (environment_id, user_id, created_at DESC, id) WHERE user_id IS NOT NULL;

-- GET .../webhooks/{webhookId}/messages?status=...
CREATE INDEX webhook_messages_webhook_status_idx ON webhook_messages (environment_id, webhook_id, status, created_at DESC, id);
