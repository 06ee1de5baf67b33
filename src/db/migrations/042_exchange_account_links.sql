-- An end user's link to their account at one of the environment's exchanges (OAuth 2 with PKCE): the
-- exchange's access and refresh tokens, sealed with the service's sealing key and bound to the row's
-- exchange and user. Gone with the exchange connection or the user.
CREATE TABLE exchange_account_links (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  exchange_id uuid NOT NULL REFERENCES exchanges (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  access_token_sealed text NOT NULL,
  refresh_token_sealed text,
  expires_at timestamptz,
  scope text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (exchange_id, user_id)
);
CREATE INDEX exchange_account_links_user_idx ON exchange_account_links (environment_id, user_id);
