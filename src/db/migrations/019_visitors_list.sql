-- The wallet visitors list (GET /environments/{id}/visitors): visits by signed-in users only, in time order
-- either way (the id breaks ties so pages are stable), and the visits of given users (the filters that find
-- users by wallet address or chain first; also the ON DELETE SET NULL of users, which had no index on
-- user_id) or of one SDK visitor id (filterColumn=all).
CREATE INDEX IF NOT EXISTS visits_environment_signed_in_idx ON visits (environment_id, created_at DESC, id DESC) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS visits_environment_user_idx ON visits (environment_id, user_id, created_at DESC, id DESC) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS visits_environment_visitor_idx ON visits (environment_id, visitor_id);
