-- Deleting users or environments scans child tables by user: give those foreign keys their own indexes.
CREATE INDEX IF NOT EXISTS verified_credentials_user_id_idx ON verified_credentials (user_id);
CREATE INDEX IF NOT EXISTS sessions_user_id_idx ON sessions (user_id);
CREATE INDEX IF NOT EXISTS wallets_user_id_idx ON wallets (user_id);
CREATE INDEX IF NOT EXISTS custody_hd_wallets_user_id_idx ON custody_hd_wallets (user_id);
CREATE INDEX IF NOT EXISTS wallet_additional_addresses_wallet_id_idx ON wallet_additional_addresses (wallet_id);

-- The audit trail outlives what it describes: deleting an organization keeps its rows (the deletion's own
-- row included), detached from the organization that no longer exists.
ALTER TABLE audit_log ALTER COLUMN organization_id DROP NOT NULL;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_organization_id_fkey;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_organization_id_fkey
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE SET NULL;
