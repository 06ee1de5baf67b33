-- The identity provider's tokens of a user's OAuth account. One row per OAuth verified
-- credential; each token is sealed (AES-256-GCM, src/crypto/seal.ts) with the credential's id as associated
-- data, so a sealed value copied onto another account does not open. The older, never-written columns
-- verified_credentials.oauth_*_sealed stay unused: tokens live here, next to their own expiry, and go with
-- the credential (ON DELETE CASCADE).
CREATE TABLE oauth_account_tokens (
  credential_id uuid PRIMARY KEY REFERENCES verified_credentials (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  access_token_sealed text NOT NULL,
  refresh_token_sealed text,
  id_token_sealed text,
  scope text,
  access_token_expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_account_tokens_environment_idx ON oauth_account_tokens (environment_id);
