-- Accounts: the people behind members. One account can be a member of several organizations; account
-- (member) API tokens act for the account in every organization it belongs to, with its role there.
CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  email text,
  alias text,
  first_name text,
  last_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email)) WHERE email IS NOT NULL;

ALTER TABLE members ADD COLUMN account_id uuid REFERENCES accounts (id) ON DELETE CASCADE;
-- Existing members become accounts: one per distinct e-mail, and one per member without an e-mail.
INSERT INTO accounts (id, email, alias, first_name, last_name, created_at)
SELECT DISTINCT ON (lower(email)) gen_random_uuid(), email, alias, first_name, last_name, created_at
FROM members WHERE email IS NOT NULL ORDER BY lower(email), created_at;
INSERT INTO accounts (id, alias, first_name, last_name, created_at)
SELECT id, alias, first_name, last_name, created_at FROM members WHERE email IS NULL;
UPDATE members m SET account_id = a.id FROM accounts a WHERE lower(a.email) = lower(m.email);
UPDATE members SET account_id = id WHERE email IS NULL;
ALTER TABLE members ALTER COLUMN account_id SET NOT NULL;
CREATE UNIQUE INDEX members_organization_account_key ON members (organization_id, account_id);
CREATE INDEX members_account_idx ON members (account_id);

-- Tokens are bound either to an environment (environment tokens) or to an account (member tokens).
ALTER TABLE api_tokens ALTER COLUMN environment_id DROP NOT NULL;
ALTER TABLE api_tokens ALTER COLUMN organization_id DROP NOT NULL;
ALTER TABLE api_tokens ADD COLUMN account_id uuid REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_binding_check
  CHECK ((environment_id IS NOT NULL AND organization_id IS NOT NULL AND account_id IS NULL)
      OR (environment_id IS NULL AND organization_id IS NULL AND account_id IS NOT NULL));
CREATE INDEX api_tokens_account_idx ON api_tokens (account_id, created_at DESC) WHERE deleted_at IS NULL;

-- Audit trail: every management change, written in the same transaction as the change. The events and
-- webhooks flows publish from these rows.
CREATE TABLE audit_log (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE SET NULL,
  actor_token_id uuid,
  actor_member_id uuid,
  actor_account_id uuid,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  changes jsonb NOT NULL DEFAULT '{}',
  request_id text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX audit_log_environment_idx ON audit_log (environment_id, created_at DESC, id);
CREATE INDEX audit_log_organization_idx ON audit_log (organization_id, created_at DESC, id);
