-- Second factors of end users. A TOTP device keeps its secret sealed (AES-256-GCM, bound to the
-- device id) and the time step of the last code it accepted: a code is good once, and so is any earlier one.
ALTER TABLE user_mfa_devices
  ADD COLUMN totp_secret_sealed text,
  ADD COLUMN totp_last_counter bigint;

-- At most one default device per user: the one sign-in asks for first, and the one that cannot be deleted.
CREATE UNIQUE INDEX user_mfa_devices_one_default ON user_mfa_devices (environment_id, user_id) WHERE is_default;

-- Recovery codes: ten per set, single use, only their SHA-256 kept (80 random bits each, see
-- src/domain/mfa/recovery-codes.ts). A new set replaces the old one whole.
CREATE TABLE user_mfa_recovery_codes (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz,
  PRIMARY KEY (environment_id, user_id, code_hash)
);
