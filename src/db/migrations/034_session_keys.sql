-- Session keys of embedded wallets: a short-lived public key the user's device registers for its
-- session; it signs the device's wallet requests (src/domain/embedded-wallets/sdk-session-keys.ts). A key is
-- good only while its session is: the check joins sessions (revoked_at, expires_at), so a revoked or ended
-- session takes its keys with it and nothing has to be kept in sync. expires_at records the session's expiry
-- when the key was registered (for the record; the join decides).
CREATE TABLE session_keys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Lowercase hex: a P-256 point (compressed, 33 bytes) or an ed25519 key (32 bytes).
  public_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  UNIQUE (environment_id, session_id, public_key)
);
CREATE INDEX session_keys_user_idx ON session_keys (environment_id, user_id, public_key);

-- Wallet requests of end users that must count once: a signed request body (by its hash) or an export
-- activity id. The primary key makes the second use fail, also when two arrive together.
CREATE TABLE embedded_wallet_activities (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  -- 'export:<activityId>' or 'signed:<sha256 of the signed body>'.
  activity text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  wallet_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, activity)
);

-- The passcode of a V1 embedded wallet (getEmbeddedWalletPasscode, source "dynamic"): a random secret made by
-- the service on first request, sealed (associated data `wallet:<id>:passcode`). The wallet's backup
-- (getEmbeddedWalletBackups) is its key encrypted under this passcode, so the pair opens offline.
CREATE TABLE embedded_wallet_passcodes (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL,
  passcode_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, wallet_id),
  FOREIGN KEY (environment_id, wallet_id) REFERENCES wallets (environment_id, id) ON DELETE CASCADE
);

-- Where a user's embedded-wallet recovery mails go (updateEmbeddedWalletRecoveryEmail): one of the user's
-- verified e-mail addresses, chosen by a request signed with a session key. Without a row, the user's first
-- verified e-mail address is used.
CREATE TABLE embedded_wallet_recovery_emails (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, user_id)
);
