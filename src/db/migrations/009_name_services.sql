-- Name services: one ENS-like domain per environment and chain, linked after its owner signed a challenge.
CREATE TABLE name_services (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  chain_name text NOT NULL,
  domain text NOT NULL,
  owner_address text NOT NULL,
  -- The message the owner signed and the signature: the proof of ownership, kept for audit.
  signed_message text NOT NULL,
  signature text NOT NULL,
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX name_services_environment_chain_key ON name_services (environment_id, chain_name);

-- Global wallet settings: at most one row per environment.
CREATE TABLE global_wallet_settings (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  wallet_name text NOT NULL,
  wallet_icon_url text,
  popup_page_title text,
  custom_css_url text,
  terms_url text,
  privacy_policy_url text,
  enabled_chains text[] NOT NULL DEFAULT '{}',
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX global_wallet_settings_environment_key ON global_wallet_settings (environment_id);

-- Global wallet access control: at most one per environment, with its listed domains.
CREATE TABLE global_wallet_access_controls (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('allowList', 'blockList')),
  enabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX global_wallet_access_controls_environment_key ON global_wallet_access_controls (environment_id);

CREATE TABLE global_wallet_access_control_domains (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  access_control_id uuid NOT NULL REFERENCES global_wallet_access_controls (id) ON DELETE CASCADE,
  -- Lowercase ASCII hostname, or *. followed by one for a wildcard over its subdomains.
  domain text NOT NULL,
  type text NOT NULL CHECK (type IN ('allow', 'block')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One entry per hostname (an environment has at most one access control); also serves the matching lookup.
CREATE UNIQUE INDEX global_wallet_access_control_domains_domain_key ON global_wallet_access_control_domains (environment_id, domain);
CREATE INDEX global_wallet_access_control_domains_list_idx ON global_wallet_access_control_domains (environment_id, created_at, id);

-- Custom networks of an organization.
CREATE TABLE custom_networks (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  chain_id bigint NOT NULL CHECK (chain_id > 0),
  rpc_urls text[] NOT NULL,
  block_explorer_urls text[] NOT NULL DEFAULT '{}',
  native_currency_name text NOT NULL,
  native_currency_symbol text NOT NULL,
  native_currency_decimals integer NOT NULL CHECK (native_currency_decimals BETWEEN 0 AND 36),
  icon_url text,
  testnet boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_networks_organization_chain_key ON custom_networks (organization_id, chain_id);
CREATE INDEX custom_networks_list_idx ON custom_networks (organization_id, created_at, id);
