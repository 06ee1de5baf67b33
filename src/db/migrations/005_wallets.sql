-- Wallets: change time, pregenerated embedded wallets and their sealed key material, list indexes.

ALTER TABLE wallets ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
-- Embedded wallets the management API pregenerated for a user (before any sign-in); the SDK claims them
-- for the signed-in user (claimed_at). Both null for wallets linked by their owner.
ALTER TABLE wallets ADD COLUMN pregenerated_at timestamptz;
ALTER TABLE wallets ADD COLUMN claimed_at timestamptz;
ALTER TABLE wallets ADD CONSTRAINT wallets_claimed_check CHECK (claimed_at IS NULL OR pregenerated_at IS NOT NULL);
-- Lets rows of other tables reference a wallet together with its environment (composite foreign keys).
ALTER TABLE wallets ADD CONSTRAINT wallets_environment_id_key UNIQUE (environment_id, id);

-- The environment's wallet list (newest first), unfiltered or by chain, provider or user; the embedded
-- wallet versions count reads the provider index.
CREATE INDEX wallets_environment_list_idx ON wallets (environment_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX wallets_environment_chain_list_idx ON wallets (environment_id, chain, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX wallets_environment_provider_list_idx ON wallets (environment_id, provider, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX wallets_environment_user_list_idx ON wallets (environment_id, user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Private keys of pregenerated embedded wallets: AES-256-GCM sealed (src/crypto/seal.ts), bound by
-- associated data to the wallet (`wallet:<walletId>:private_key`), so a sealed key copied to another row
-- does not open. Soft-deleting the wallet keeps the key, so that recovery gives the same wallet back.
CREATE TABLE embedded_wallet_keys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL UNIQUE,
  key_family text NOT NULL CHECK (key_family IN ('evm', 'solana')),
  -- Hex public key (uncompressed secp256k1 or raw ed25519): the wallet address derives from it.
  public_key text NOT NULL,
  private_key_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (environment_id, wallet_id) REFERENCES wallets (environment_id, id) ON DELETE CASCADE
);
CREATE INDEX embedded_wallet_keys_environment_idx ON embedded_wallet_keys (environment_id);
