-- Second-factor devices of end users (the User resource's mfaDevices). The management surface resets them
-- (DELETE /users/{userId}/mfa, POST /users/{userId}/mfa/reset): the user then enrolls again.
CREATE TABLE user_mfa_devices (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('totp', 'passkey', 'email')),
  alias text,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz
);
CREATE INDEX user_mfa_devices_user_idx ON user_mfa_devices (environment_id, user_id, created_at);
