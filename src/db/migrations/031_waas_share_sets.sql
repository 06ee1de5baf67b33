-- Threshold WaaS wallets: the private key never exists whole at rest. A wallet's key is split into
-- a share set (Shamir over the curve's scalar field, Feldman commitments); each refresh or reshare writes a
-- new share set with the next epoch. The wallet actor (src/workflows/waas-wallet.ts) writes a set as
-- 'pending', then promotes it in one transaction (it becomes 'current', the previous current 'retired'),
-- then destroys the retired set's shares: a crash at any point leaves exactly one current set.

-- Wallets of the management surface keep their whole key sealed here; threshold wallets leave it
-- NULL and have a share set instead.
ALTER TABLE waas_wallets ALTER COLUMN private_key_sealed DROP NOT NULL;

CREATE TABLE waas_share_sets (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL REFERENCES waas_wallets (id) ON DELETE CASCADE,
  epoch integer NOT NULL CHECK (epoch >= 1),
  -- The lifecycle operation (workflow Update id) that wrote the set: a retried activity finds its own set.
  operation_id text NOT NULL,
  curve text NOT NULL,
  threshold integer NOT NULL CHECK (threshold >= 1),
  holders integer NOT NULL CHECK (holders >= threshold),
  -- Feldman commitments (hex points), public: every holder checks its share against them.
  commitments jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'current', 'retired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  current_at timestamptz,
  retired_at timestamptz,
  UNIQUE (wallet_id, epoch),
  UNIQUE (wallet_id, operation_id),
  CHECK ((status = 'current') = (current_at IS NOT NULL AND retired_at IS NULL) OR status = 'retired')
);
-- The invariant the whole lifecycle rests on: never two current sets of one wallet.
CREATE UNIQUE INDEX waas_share_sets_one_current_idx ON waas_share_sets (wallet_id) WHERE status = 'current';
CREATE INDEX waas_share_sets_environment_idx ON waas_share_sets (environment_id, wallet_id);

-- One row per holder of a set. The server's share is sealed (deps.sealer, associated data = set id + index);
-- any other holder's share is only ever stored encrypted to that holder (opaque to the service). Destroying
-- a retired set clears both columns and stamps destroyed_at.
CREATE TABLE waas_share_set_shares (
  share_set_id uuid NOT NULL REFERENCES waas_share_sets (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  holder_index integer NOT NULL CHECK (holder_index >= 1),
  share_sealed text,
  encrypted_for_holder text,
  destroyed_at timestamptz,
  PRIMARY KEY (share_set_id, holder_index),
  CHECK (
    (destroyed_at IS NULL AND num_nonnulls(share_sealed, encrypted_for_holder) = 1)
    OR (destroyed_at IS NOT NULL AND share_sealed IS NULL AND encrypted_for_holder IS NULL)
  )
);
