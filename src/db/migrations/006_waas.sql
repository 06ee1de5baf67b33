-- WaaS (wallet-as-a-service) management: server-held wallets, their key-share backup records, the
-- environment's signing policy and the secret that signs WaaS session tokens.

-- Wallets whose key the service holds (sealed at rest, bound by associated data to the row). A wallet
-- belongs to a user of the environment or, with user_id null, to the environment itself.
CREATE TABLE waas_wallets (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  name text,
  chain text NOT NULL CHECK (chain IN ('EVM', 'SOL')),
  address text NOT NULL,
  public_key text NOT NULL,
  private_key_sealed text NOT NULL,
  delegated_access_granted_at timestamptz,
  delegated_access_revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, chain, address)
);
CREATE INDEX waas_wallets_user_idx ON waas_wallets (environment_id, user_id);

-- Where a wallet's key shares were backed up (the shares themselves are not stored here).
CREATE TABLE waas_key_share_backups (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL REFERENCES waas_wallets (id) ON DELETE CASCADE,
  location text NOT NULL,
  external_key_share_id text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, wallet_id, location, external_key_share_id)
);
CREATE INDEX waas_key_share_backups_wallet_idx ON waas_key_share_backups (environment_id, wallet_id, created_at, id);

-- One signing policy document per environment.
CREATE TABLE waas_policies (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL UNIQUE REFERENCES environments (id) ON DELETE CASCADE,
  rules jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The HMAC secret that signs an environment's WaaS session tokens, created on first use, sealed at rest.
CREATE TABLE waas_session_keys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL UNIQUE REFERENCES environments (id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The delegated-access encryption key listing pages by creation time.
CREATE INDEX encryption_public_keys_environment_created_idx ON encryption_public_keys (environment_id, created_at, id);
