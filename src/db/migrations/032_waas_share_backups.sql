-- Backups of threshold WaaS wallets' key shares: one row per share set epoch, holder and backup
-- location. At the service's own location ('service') the row holds the share itself, sealed under the
-- backup sealing keys (SIGIL_BACKUP_SEALING_KEYS, not the keys that seal the server's live share); at the
-- other locations (a cloud drive, a customer's URL, the environment's delegated-access key) it records where
-- the backup went (a file id, the URL, the event id), the share being held there.
CREATE TABLE waas_share_backups (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL REFERENCES waas_wallets (id) ON DELETE CASCADE,
  share_set_epoch integer NOT NULL CHECK (share_set_epoch >= 1),
  -- The holder's 1-based index in the share set (waas_share_set_shares.holder_index).
  holder integer NOT NULL CHECK (holder BETWEEN 1 AND 255),
  location text NOT NULL CHECK (location IN ('service', 'cloud_drive', 'external', 'delegated')),
  share_sealed text,
  reference text CHECK (length(reference) <= 2048),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- One backup per wallet, epoch, holder and location: a retried backup step finds the row it wrote.
  UNIQUE (environment_id, wallet_id, share_set_epoch, holder, location),
  CHECK ((location = 'service') = (share_sealed IS NOT NULL)),
  CHECK (location = 'service' OR reference IS NOT NULL)
);
CREATE INDEX waas_share_backups_wallet_idx ON waas_share_backups (wallet_id, share_set_epoch);
