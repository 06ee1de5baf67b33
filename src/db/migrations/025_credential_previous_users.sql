-- Wallets and verified credentials moved between users (wallet transfer, user merge) remember the users
-- that held them before, oldest first (the client's previous_users of a verified credential).
ALTER TABLE wallets ADD COLUMN previous_user_ids uuid[] NOT NULL DEFAULT '{}';
ALTER TABLE verified_credentials ADD COLUMN previous_user_ids uuid[] NOT NULL DEFAULT '{}';
