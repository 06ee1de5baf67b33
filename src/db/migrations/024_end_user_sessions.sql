-- End-user sessions.

-- Key rotation: an environment has one current signing key and keeps its retired keys published (JWKS)
-- until every token they signed has expired (published_until).
ALTER TABLE environment_signing_keys DROP CONSTRAINT environment_signing_keys_environment_id_key;
ALTER TABLE environment_signing_keys ADD COLUMN retired_at timestamptz;
ALTER TABLE environment_signing_keys ADD COLUMN published_until timestamptz;
CREATE UNIQUE INDEX environment_signing_keys_current_key ON environment_signing_keys (environment_id) WHERE retired_at IS NULL;
CREATE INDEX environment_signing_keys_environment_idx ON environment_signing_keys (environment_id, created_at DESC);

-- A session lives until its latest token expires (refresh moves it); revocation is revoked_at here and a
-- marker in the store that every api process checks (src/domain/sessions/revocation.ts).
ALTER TABLE sessions ADD COLUMN expires_at timestamptz;
-- The scope the session's tokens carry (user:basic plus what allowlists with a scope outcome grant).
ALTER TABLE sessions ADD COLUMN scope text;

-- The credential the user signed in or linked with last (SdkUser.lastVerifiedCredentialId).
ALTER TABLE users ADD COLUMN last_verified_credential_id uuid;

-- Changes an end user makes through the SDK (sign-in, link, update, delete) are audited with the user as
-- the actor (no API token is involved).
ALTER TABLE audit_log ADD COLUMN actor_user_id uuid;

-- Sign-in finds a user by a proven e-mail or phone number among the verified credentials, and one
-- credential belongs to one user of the environment (concurrent sign-ups with one address: one wins).
CREATE UNIQUE INDEX verified_credentials_email_key ON verified_credentials (environment_id, lower(email))
  WHERE format = 'email' AND deleted_at IS NULL;
CREATE UNIQUE INDEX verified_credentials_phone_key ON verified_credentials (environment_id,
  (CASE WHEN phone_number LIKE '+%' THEN phone_number ELSE '+' || coalesce(phone_country_code, '') || phone_number END))
  WHERE format = 'phoneNumber' AND deleted_at IS NULL;
