-- Shapes of the published client for environment settings and the global wallet.

-- What a custom hostname serves: the SDK surface's cookies or the global wallet.
ALTER TABLE custom_hostnames ADD COLUMN usage text NOT NULL DEFAULT 'cookies' CHECK (usage IN ('cookies', 'globalWallet'));

-- The icon of a custom network's native currency (the published client's nativeCurrencyIconUrl).
ALTER TABLE custom_networks ADD COLUMN native_currency_icon_url text;

-- Apps (by URL) that users connected to through the environment's global wallet; disconnecting keeps the
-- row (status disconnected) so the history stays readable.
CREATE TABLE global_wallet_connections (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  app_url text NOT NULL CHECK (length(app_url) <= 2048),
  status text NOT NULL DEFAULT 'connected' CHECK (status IN ('connected', 'disconnected')),
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX global_wallet_connections_list_idx ON global_wallet_connections (environment_id, created_at, id);
CREATE INDEX global_wallet_connections_user_idx ON global_wallet_connections (user_id);
