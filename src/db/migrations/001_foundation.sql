-- Tenancy: organizations own projects, projects own environments (live and sandbox).
CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_organization_idx ON projects (organization_id);

CREATE TABLE environments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name IN ('live', 'sandbox')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

CREATE TABLE members (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text,
  alias text,
  first_name text,
  last_name text,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX members_organization_idx ON members (organization_id);
CREATE UNIQUE INDEX members_organization_email_key ON members (organization_id, lower(email)) WHERE email IS NOT NULL;

-- API tokens: only the SHA-256 of the raw token is kept.
CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  checksum text NOT NULL,
  note text NOT NULL DEFAULT '',
  created_by_member_id uuid REFERENCES members (id) ON DELETE SET NULL,
  permissions text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  deleted_at timestamptz
);
CREATE INDEX api_tokens_environment_idx ON api_tokens (environment_id, created_at DESC) WHERE deleted_at IS NULL;

CREATE TABLE invites (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text,
  alias text,
  wallet_public_key text,
  phone_number text,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked', 'expired')),
  created_by_member_id uuid REFERENCES members (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_organization_idx ON invites (organization_id, created_at DESC);
CREATE UNIQUE INDEX invites_pending_email_key ON invites (organization_id, lower(email)) WHERE status = 'pending' AND email IS NOT NULL;

-- End users of an environment.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  email text,
  phone_number text,
  alias text,
  first_name text,
  last_name text,
  username text,
  job_title text,
  country text,
  team text,
  t_shirt_size text,
  policies_consent boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}',
  first_visit timestamptz,
  last_visit timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX users_environment_idx ON users (environment_id, created_at DESC, id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX users_environment_email_key ON users (environment_id, lower(email)) WHERE email IS NOT NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX users_environment_phone_key ON users (environment_id, phone_number) WHERE phone_number IS NOT NULL AND deleted_at IS NULL;

-- Custody HD wallets (key material holders) that embedded wallets derive from.
CREATE TABLE custody_hd_wallets (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX custody_hd_wallets_user_idx ON custody_hd_wallets (environment_id, user_id);

CREATE TABLE wallets (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The verified credential that proves this wallet (format blockchain); same lifetime as the wallet.
  credential_id uuid NOT NULL UNIQUE,
  name text NOT NULL,
  chain text NOT NULL,
  address text NOT NULL,
  provider text NOT NULL,
  custody_hd_wallet_id uuid REFERENCES custody_hd_wallets (id),
  properties jsonb NOT NULL DEFAULT '{}',
  last_selected_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX wallets_user_idx ON wallets (environment_id, user_id);
CREATE UNIQUE INDEX wallets_environment_address_key ON wallets (environment_id, chain, address) WHERE deleted_at IS NULL;

CREATE TABLE wallet_additional_addresses (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
  address text NOT NULL,
  type text NOT NULL,
  public_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX wallet_additional_addresses_wallet_idx ON wallet_additional_addresses (environment_id, wallet_id);

-- Verified credentials other than wallets: e-mail, phone number, OAuth accounts.
CREATE TABLE verified_credentials (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  format text NOT NULL CHECK (format IN ('email', 'phoneNumber', 'oauth')),
  email text,
  phone_number text,
  phone_country_code text,
  iso_country_code text,
  oauth_provider text,
  oauth_account_id text,
  oauth_username text,
  oauth_display_name text,
  oauth_emails text[] NOT NULL DEFAULT '{}',
  oauth_photos text[] NOT NULL DEFAULT '{}',
  oauth_metadata jsonb NOT NULL DEFAULT '{}',
  sign_in_enabled boolean NOT NULL DEFAULT true,
  verified_at timestamptz NOT NULL DEFAULT now(),
  last_selected_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verified_credentials_user_idx ON verified_credentials (environment_id, user_id);
CREATE UNIQUE INDEX verified_credentials_oauth_key ON verified_credentials (environment_id, oauth_provider, oauth_account_id) WHERE format = 'oauth';

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ip_address text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (environment_id, user_id, created_at DESC);

-- Sign-in and infrastructure providers. The client secret is sealed (AES-256-GCM, see src/crypto/seal.ts).
CREATE TABLE providers (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  provider text NOT NULL,
  client_id text,
  client_secret_sealed text,
  authorization_url text,
  base_auth_url text,
  scopes text,
  default_chain_id integer,
  default_chain text,
  key_export_url text,
  terms_url text,
  terms_accepted_by_member_id uuid REFERENCES members (id) ON DELETE SET NULL,
  terms_accepted_email text,
  terms_accepted_at timestamptz,
  -- The remaining, provider-kind-specific settings (camelCase keys as in the API).
  settings jsonb NOT NULL DEFAULT '{}',
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, provider)
);

CREATE TABLE encryption_public_keys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kid text NOT NULL CHECK (length(kid) <= 64),
  public_key text NOT NULL,
  alg text NOT NULL,
  type text NOT NULL,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, kid)
);
