-- Exchanges as the published client creates them: no credentials of the environment's own (end users link
-- their exchange accounts through the sign-in provider named here), and the providers the SDK uses for
-- the exchange's sign-in and on-ramp.
ALTER TABLE exchanges
  ALTER COLUMN api_key_sealed DROP NOT NULL,
  ALTER COLUMN api_secret_sealed DROP NOT NULL,
  ALTER COLUMN api_key_hint DROP NOT NULL,
  ADD COLUMN social_provider text,
  ADD COLUMN on_ramp_provider text,
  ADD CONSTRAINT exchanges_credentials_together CHECK ((api_key_sealed IS NULL) = (api_secret_sealed IS NULL));
