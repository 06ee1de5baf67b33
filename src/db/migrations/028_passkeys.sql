-- End users' WebAuthn credentials (passkeys). A row with mfa_device_id is the key of a passkey MFA device
-- (user_mfa_devices, type 'passkey') and serves only as a second factor; a row without it signs the user
-- in. The credential id is what the authenticator names the key by: unique in an environment, so an
-- assertion names one row and one user.
CREATE TABLE user_passkeys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  mfa_device_id uuid REFERENCES user_mfa_devices (id) ON DELETE CASCADE,
  -- base64url of the raw credential id, as the client sends it back in every assertion.
  credential_id text NOT NULL,
  -- The COSE-encoded public key of the credential (not a secret).
  public_key bytea NOT NULL,
  -- The authenticator's signature counter: an assertion must raise it (unless the authenticator keeps none).
  sign_count bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  aaguid text NOT NULL,
  attestation_format text NOT NULL,
  device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up boolean NOT NULL,
  alias text,
  origin text NOT NULL,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  last_used_at timestamptz
);
CREATE UNIQUE INDEX user_passkeys_credential_key ON user_passkeys (environment_id, credential_id);
CREATE INDEX user_passkeys_user_idx ON user_passkeys (environment_id, user_id, created_at);
