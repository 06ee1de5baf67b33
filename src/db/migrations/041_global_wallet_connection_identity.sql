-- A user has at most one live (connected) connection per app in an environment: connecting again answers
-- that one (src/domain/global-wallet/connections.ts), and two connects at once cannot make two rows.
-- Disconnected rows stay as the history, any number of them. Older duplicates, if any, are closed first
-- (the newest live one is kept).
UPDATE global_wallet_connections c SET status = 'disconnected', updated_at = now()
WHERE c.status = 'connected' AND EXISTS (
  SELECT 1 FROM global_wallet_connections n
  WHERE n.environment_id = c.environment_id AND n.user_id = c.user_id AND n.app_url = c.app_url AND n.status = 'connected'
    AND (n.created_at, n.id) > (c.created_at, c.id)
);
CREATE UNIQUE INDEX global_wallet_connections_live_key ON global_wallet_connections (environment_id, user_id, app_url) WHERE status = 'connected';
