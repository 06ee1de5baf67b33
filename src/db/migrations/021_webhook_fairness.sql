-- Fairness between tenants: the dispatcher keeps at most N delivery workflows running per
-- environment and per endpoint; the rest of the messages wait pending, without a workflow, and start as
-- earlier ones finish (src/domain/webhooks/dispatcher.ts).
-- workflow_started_at: when the dispatcher took the message into the running budget and started (or tried to
-- start) its workflow. Running = pending with a start; waiting = pending without one. A message whose start
-- was recorded but whose workflow never ran (workflow_seen_at still null) is the orphan the sweep restarts.
ALTER TABLE webhook_messages ADD COLUMN workflow_started_at timestamptz;
UPDATE webhook_messages SET workflow_started_at = coalesce(workflow_seen_at, created_at) WHERE status = 'pending';
-- Waiting messages, oldest first.
CREATE INDEX webhook_messages_waiting_idx ON webhook_messages (created_at, id) WHERE status = 'pending' AND workflow_started_at IS NULL;
-- Running messages, counted per environment and endpoint.
CREATE INDEX webhook_messages_running_idx ON webhook_messages (environment_id, webhook_id) WHERE status = 'pending' AND workflow_started_at IS NOT NULL;
-- Orphans: started, never seen running.
DROP INDEX webhook_messages_orphan_idx;
CREATE INDEX webhook_messages_orphan_idx ON webhook_messages (workflow_started_at, id) WHERE status = 'pending' AND workflow_seen_at IS NULL AND workflow_started_at IS NOT NULL;
-- A running message that ends (delivered, failed, cancelled) frees budget: tell the dispatchers at commit, so
-- waiting messages start at once rather than at the next poll (src/domain/webhooks/dispatcher.ts).
CREATE FUNCTION webhook_budget_freed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sigil_webhook_budget', '');
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_messages_budget_freed AFTER UPDATE OF status ON webhook_messages
  FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status <> 'pending' AND NEW.workflow_started_at IS NOT NULL)
  EXECUTE FUNCTION webhook_budget_freed();
