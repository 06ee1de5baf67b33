-- When the device's contribution was taken. A room whose run never reached the wallet's actor (the engine
-- was down, the process died between) stays 'contributed': the room reconciler
-- (src/domain/waas/threshold/room-reconciler.ts) finds such rooms by this time and runs them again.
ALTER TABLE waas_rooms ADD COLUMN contributed_at timestamptz;
UPDATE waas_rooms SET contributed_at = created_at WHERE status = 'contributed';
CREATE INDEX waas_rooms_contributed_idx ON waas_rooms (contributed_at) WHERE status = 'contributed';
