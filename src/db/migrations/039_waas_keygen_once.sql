-- Key generation answers on the request path (src/domain/waas/threshold/key-generation.ts): a retried
-- createWaasAccount (same user, same device keygen ids) finds the room, and so the wallet, its first attempt
-- made instead of making a second wallet. Fresh keygen ids are made per wallet by the device.
CREATE UNIQUE INDEX waas_rooms_keygen_once_idx ON waas_rooms (environment_id, user_id, (request -> 'clientKeygenIds')) WHERE operation = 'keygen';
-- Every room opened first clears the user's long-expired rooms: by user, not by scanning the environment's.
CREATE INDEX waas_rooms_user_idx ON waas_rooms (environment_id, user_id, expires_at);
