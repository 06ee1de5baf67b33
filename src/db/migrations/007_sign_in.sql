-- Sign-in settings: OpenID Connect / OAuth 2 endpoints of providers, allowlists, token gates, exchange
-- connections and compliance (sanctions screening) settings.

-- Providers configured for any issuer by URL; `preset` names the well-known issuer the endpoints came from.
ALTER TABLE providers ADD COLUMN issuer text;
ALTER TABLE providers ADD COLUMN token_url text;
ALTER TABLE providers ADD COLUMN userinfo_url text;
ALTER TABLE providers ADD COLUMN preset text;

CREATE TABLE allowlists (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('siteAccess', 'scope', 'block')),
  scope text,
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX allowlists_environment_idx ON allowlists (environment_id, created_at, id);

-- One identifier per row, stored canonical so that the same identifier always compares equal.
CREATE TABLE allowlist_entries (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  allowlist_id uuid NOT NULL REFERENCES allowlists (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('walletPublicKey', 'email', 'emailDomain', 'phoneNumber')),
  value text NOT NULL,
  chain text,
  alias text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (allowlist_id, type, value)
);
CREATE INDEX allowlist_entries_allowlist_idx ON allowlist_entries (allowlist_id, created_at, id);
CREATE INDEX allowlist_entries_environment_idx ON allowlist_entries (environment_id);

CREATE TABLE gates (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('siteAccess', 'scope', 'block')),
  scope text,
  -- [{type, chain, address: {contractAddress, networkId}, filter: {tokenId, amount}}], as in the API.
  rules jsonb NOT NULL DEFAULT '[]',
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gates_environment_idx ON gates (environment_id, created_at, id);

-- Exchange connections. Credentials are sealed (AES-256-GCM, bound to the row); only a hint is shown.
CREATE TABLE exchanges (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  exchange text NOT NULL,
  display_name text,
  api_base_url text,
  api_key_sealed text NOT NULL,
  api_secret_sealed text NOT NULL,
  passphrase_sealed text,
  api_key_hint text NOT NULL,
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, exchange)
);
CREATE INDEX exchanges_environment_idx ON exchanges (environment_id, created_at, id);

-- One row per environment once a compliance setting was changed; absent means everything off.
CREATE TABLE environment_compliance (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  sanctions_enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
