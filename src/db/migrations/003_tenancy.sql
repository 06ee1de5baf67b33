-- Tenancy management: organization profile and address, environment settings and signing keys,
-- organization MFA settings, invite answers, and the indexes the tenancy lists need.

ALTER TABLE organizations
  ADD COLUMN description text,
  ADD COLUMN website_url text,
  ADD COLUMN address_line1 text,
  ADD COLUMN address_line2 text,
  ADD COLUMN address_city text,
  ADD COLUMN address_region text,
  ADD COLUMN address_postal_code text,
  ADD COLUMN address_country text;

ALTER TABLE projects ADD COLUMN description text;
CREATE INDEX projects_organization_created_idx ON projects (organization_id, created_at, id);

-- The environment's typed settings (sigil.projects.v0.EnvironmentSettings in its JSON form).
ALTER TABLE environments ADD COLUMN settings jsonb NOT NULL DEFAULT '{}';
CREATE INDEX environments_organization_idx ON environments (organization_id);

-- The key pair an environment signs its end users' JWTs with. One per environment (created with the
-- environment, or on first read); the private key is sealed (AES-256-GCM, bound to the row).
CREATE TABLE environment_signing_keys (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL UNIQUE REFERENCES environments (id) ON DELETE CASCADE,
  kid text NOT NULL,
  alg text NOT NULL,
  public_key_pem text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_key_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Which MFA device types the organization's members may (must) use. Absent rows read as disabled.
CREATE TABLE organization_mfa_settings (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  device_type text NOT NULL CHECK (device_type IN ('totp', 'passkey', 'email', 'sms')),
  enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, device_type)
);

-- Invitees may decline: status rejected.
ALTER TABLE invites DROP CONSTRAINT invites_status_check;
ALTER TABLE invites ADD CONSTRAINT invites_status_check CHECK (status IN ('pending', 'accepted', 'rejected', 'revoked', 'expired'));
-- The invitee's own list (GET /invites): pending invites to the account's e-mail.
CREATE INDEX invites_email_pending_idx ON invites (lower(email), created_at DESC) WHERE status = 'pending';

-- Removing a member deactivates the environment tokens it created.
CREATE INDEX api_tokens_creator_idx ON api_tokens (created_by_member_id) WHERE created_by_member_id IS NOT NULL;
CREATE INDEX members_organization_created_idx ON members (organization_id, created_at, id);
CREATE INDEX api_tokens_organization_idx ON api_tokens (organization_id) WHERE organization_id IS NOT NULL;
