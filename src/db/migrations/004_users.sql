-- Users: external ids, list filters and orderings backed by indexes, soft deletion of credentials, sealed
-- OAuth tokens, custom profile fields.

-- The caller's own id for a user; unique per environment among live users.
ALTER TABLE users ADD COLUMN external_user_id text;
CREATE UNIQUE INDEX users_environment_external_id_key ON users (environment_id, external_user_id)
  WHERE external_user_id IS NOT NULL AND deleted_at IS NULL;

-- List filters: case-insensitive prefix matches (LIKE 'x%' on lower(column)) per environment, live users only.
-- text_pattern_ops so that LIKE prefixes use the index under any database collation.
CREATE INDEX users_environment_email_prefix_idx ON users (environment_id, lower(email) text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_phone_prefix_idx ON users (environment_id, phone_number text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_alias_prefix_idx ON users (environment_id, lower(alias) text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_first_name_prefix_idx ON users (environment_id, lower(first_name) text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_last_name_prefix_idx ON users (environment_id, lower(last_name) text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_username_prefix_idx ON users (environment_id, lower(username) text_pattern_ops) WHERE deleted_at IS NULL;
-- Orderings other than createdAt (users_environment_idx serves createdAt in both directions).
CREATE INDEX users_environment_updated_idx ON users (environment_id, updated_at DESC, id) WHERE deleted_at IS NULL;
CREATE INDEX users_environment_email_order_idx ON users (environment_id, lower(email), id) WHERE deleted_at IS NULL;
-- The walletPublicKey filter (addresses are stored canonical, e.g. EIP-55; matched case-insensitively).
CREATE INDEX wallets_environment_address_prefix_idx ON wallets (environment_id, lower(address) text_pattern_ops) WHERE deleted_at IS NULL;

-- Credentials of deleted users are marked too, so that their OAuth accounts can be linked again.
ALTER TABLE verified_credentials ADD COLUMN deleted_at timestamptz;
DROP INDEX verified_credentials_oauth_key;
CREATE UNIQUE INDEX verified_credentials_oauth_key ON verified_credentials (environment_id, oauth_provider, oauth_account_id)
  WHERE format = 'oauth' AND deleted_at IS NULL;
-- The OAuth provider's tokens of an account: AES-256-GCM sealed, bound to the credential row (see seal.ts).
ALTER TABLE verified_credentials ADD COLUMN oauth_access_token_sealed text;
ALTER TABLE verified_credentials ADD COLUMN oauth_refresh_token_sealed text;
ALTER TABLE verified_credentials ADD COLUMN oauth_access_token_expires_at timestamptz;

-- Revoking all of a user's sessions touches only the live ones.
CREATE INDEX sessions_user_live_idx ON sessions (environment_id, user_id) WHERE revoked_at IS NULL;

-- Custom profile fields an environment asks of its users.
CREATE TABLE custom_fields (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  label text,
  type text NOT NULL CHECK (type IN ('standard', 'custom')),
  validation_type text NOT NULL CHECK (validation_type IN ('text', 'checkbox', 'select')),
  required boolean NOT NULL DEFAULT false,
  enabled boolean NOT NULL DEFAULT true,
  is_unique boolean NOT NULL DEFAULT false,
  verify boolean NOT NULL DEFAULT false,
  regex text,
  valid_options jsonb NOT NULL DEFAULT '[]',
  checkbox_text text,
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, name)
);
CREATE INDEX custom_fields_environment_idx ON custom_fields (environment_id, position, created_at, id);

-- Values of unique custom fields, one row per live user and field: the unique index decides races between
-- concurrent writes. Values are compared trimmed and case-insensitively (value_key).
CREATE TABLE custom_field_values (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  custom_field_id uuid NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  value_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (custom_field_id, user_id)
);
CREATE UNIQUE INDEX custom_field_values_unique_key ON custom_field_values (custom_field_id, value_key);
-- Leading user_id: serves the per-user reads and the ON DELETE CASCADE lookups of users rows.
CREATE INDEX custom_field_values_user_idx ON custom_field_values (user_id, environment_id);
