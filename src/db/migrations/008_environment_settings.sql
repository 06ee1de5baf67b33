-- Environment settings (origins, deeplink URLs, SDK views, custom hostnames, test account) and organization
-- extras (billing subscription, SSO provider), plus the configured exchange-rate table.

-- CORS allow-list of the SDK surface: scheme://host[:port], stored normalized (lowercase, default port dropped).
CREATE TABLE origins (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  origin text NOT NULL CHECK (length(origin) <= 300),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, origin)
);
CREATE INDEX origins_environment_idx ON origins (environment_id, created_at, id);

-- Redirect targets a mobile or desktop app may receive sign-in results at (https or a custom scheme).
CREATE TABLE deeplink_urls (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) <= 2048),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, url)
);
CREATE INDEX deeplink_urls_environment_idx ON deeplink_urls (environment_id, created_at, id);

-- SDK view overrides; a view never set reads as its built-in default (not stored).
CREATE TABLE sdk_views (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  type text NOT NULL,
  sections jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, type)
);

-- Custom hostnames: globally unique; verification (DNS TXT lookup) is recorded as pending.
CREATE TABLE custom_hostnames (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  hostname text NOT NULL CHECK (length(hostname) <= 253),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'failed')),
  verification_token text NOT NULL,
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_hostnames_hostname_key ON custom_hostnames (hostname);
CREATE INDEX custom_hostnames_environment_idx ON custom_hostnames (environment_id, created_at, id);

-- One reviewer sign-in account per environment; its fixed one-time code is sealed.
CREATE TABLE test_accounts (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL UNIQUE REFERENCES environments (id) ON DELETE CASCADE,
  email text,
  phone_number text,
  otp_code_sealed text NOT NULL,
  created_by_member_id uuid REFERENCES members (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((email IS NOT NULL) <> (phone_number IS NOT NULL))
);

-- Configured exchange rates: global reference data (no tenant), never fetched from outside. Operators
-- change them with SQL or a further migration; requests only read them.
CREATE TABLE exchange_rates (
  symbol text NOT NULL,
  currency text NOT NULL,
  rate numeric(38, 18) NOT NULL CHECK (rate > 0),
  source text NOT NULL DEFAULT 'configured',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (symbol, currency)
);
INSERT INTO exchange_rates (symbol, currency, rate, source, updated_at) VALUES
  ('USDC', 'USD', 1, 'configured', '2026-01-01T00:00:00Z'),
  ('USDT', 'USD', 1, 'configured', '2026-01-01T00:00:00Z'),
  ('DAI', 'USD', 1, 'configured', '2026-01-01T00:00:00Z'),
  ('ETH', 'USD', 3000, 'configured', '2026-01-01T00:00:00Z'),
  ('BTC', 'USD', 90000, 'configured', '2026-01-01T00:00:00Z'),
  ('SOL', 'USD', 150, 'configured', '2026-01-01T00:00:00Z'),
  ('USD', 'EUR', 0.92, 'configured', '2026-01-01T00:00:00Z');

-- Billing: the plan and coupon catalogue is data (src/domain/billing/catalogue.json); an organization
-- without a row is on the catalogue's default plan. No payment processor: nothing is charged.
CREATE TABLE billing_subscriptions (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  plan text NOT NULL,
  coupon_code text,
  coupon_applied_at timestamptz,
  plan_changed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- SSO for an organization's members: one provider per organization; its client secret is sealed.
CREATE TABLE sso_providers (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
  protocol text NOT NULL CHECK (protocol IN ('oidc', 'saml')),
  issuer text,
  entry_point text,
  client_id text,
  client_secret_sealed text,
  certificate text,
  enforce boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- An e-mail domain is routed to at most one SSO provider across all organizations.
CREATE TABLE sso_provider_domains (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  sso_provider_id uuid NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
  domain text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sso_provider_id, domain)
);
CREATE UNIQUE INDEX sso_provider_domains_domain_key ON sso_provider_domains (domain);
CREATE INDEX sso_provider_domains_organization_idx ON sso_provider_domains (organization_id);
