-- Rooms of threshold WaaS wallets: where the user's device and the service meet for one key-share
-- operation (src/domain/waas/rooms.ts). The device reads the room (the operation's public parameters, the
-- room's public key, the result) and posts its one contribution (its shares or an imported key, encrypted to
-- the room's key). Rooms are short-lived and single use; they hold nothing in clear that opens a share.
CREATE TABLE waas_rooms (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- No foreign key: a keygen or import room names the wallet its operation is about to create. A room
  -- reserved ahead (createRoomsWithoutWalletId) names none until an operation takes it.
  wallet_id uuid,
  -- 'reserved': opened ahead by createRooms, taken by the signing operation that names it.
  operation text NOT NULL CHECK (operation IN ('reserved', 'keygen', 'import', 'sign', 'refresh', 'reshare', 'export')),
  CHECK (wallet_id IS NOT NULL OR operation = 'reserved'),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'contributed', 'done', 'failed')),
  -- The operation's public parameters (chain, scheme, keygen ids, digest or message, export id).
  request jsonb NOT NULL,
  -- The room's P-256 key: public as a keygen id, private sealed (deps.sealer, associated data = room id).
  server_keygen_id text NOT NULL,
  server_key_sealed text NOT NULL,
  -- The share set current when the room opened (operations on an existing key): a room of a set that has
  -- since been replaced is stale. For FROST signing, the server's round-1 nonces, sealed, used once.
  share_set_id uuid,
  server_nonces_sealed text,
  server_commitments jsonb,
  contribution jsonb,
  result jsonb,
  error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- A room leaves 'open' with the device's contribution (a keygen room needs none).
  CHECK (contribution IS NULL OR status <> 'open'),
  CHECK (status = 'open' OR contribution IS NOT NULL OR operation = 'keygen'),
  CHECK (status <> 'done' OR result IS NOT NULL)
);
CREATE INDEX waas_rooms_environment_idx ON waas_rooms (environment_id, wallet_id);
CREATE INDEX waas_rooms_expiry_idx ON waas_rooms (expires_at);
-- An export id serves once per wallet (export rooms are never deleted): nothing is exported twice.
CREATE UNIQUE INDEX waas_rooms_export_once_idx ON waas_rooms (wallet_id, (request ->> 'exportId')) WHERE operation = 'export';

-- The keygen id (the device's P-256 public key) a holder's share is encrypted to: the device finds its share by it.
ALTER TABLE waas_share_set_shares ADD COLUMN holder_keygen_id text;
