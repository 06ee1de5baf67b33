-- Refresh rotation: a session's tokens carry the refresh generation they belong to (refresh_id); a refresh
-- spends it and starts the next one, so a token once used to refresh never refreshes again. refreshed_at
-- tells a concurrent refresh of one client (the same generation a moment after) from a replay long after.
-- NULL for sessions opened before rotation: their tokens carry no generation and refresh once into one.
ALTER TABLE sessions ADD COLUMN refresh_id uuid;
ALTER TABLE sessions ADD COLUMN refreshed_at timestamptz;

-- Credentials that prove themselves (a signature checks without Sigil's help) and are accepted once: an
-- external JWT, a chat widget login, a wallet backup token. Their spent mark must outlive a restart and a
-- store that forgets (the in-process store, a Redis without persistence or with eviction), or the same
-- credential signs in again: so it is kept here, until the credential has expired on its own.
CREATE TABLE spent_credentials (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL,
  -- SHA-256 of the credential (or its unique id), never the credential itself.
  digest text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (environment_id, kind, digest)
);
CREATE INDEX spent_credentials_expiry_idx ON spent_credentials (environment_id, expires_at);
