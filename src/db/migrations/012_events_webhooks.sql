-- Events: the transactional outbox. A change and its event commit together (src/domain/audit/audit.ts);
-- the dispatcher (src/domain/webhooks/dispatcher.ts) fans undispatched events out to webhook messages.
CREATE TABLE events (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL,
  -- `{resource}.{action}`, from the catalogue (src/domain/events/catalogue.ts), or `client.*` for SDK events.
  event_name text NOT NULL,
  source text NOT NULL CHECK (source IN ('service', 'client')),
  user_id uuid,
  resource_type text,
  resource_id text,
  data jsonb NOT NULL DEFAULT '{}',
  audit_id uuid,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  dispatched_at timestamptz
);
CREATE INDEX events_environment_idx ON events (environment_id, created_at DESC, id);
CREATE INDEX events_environment_name_idx ON events (environment_id, event_name, created_at DESC, id);
CREATE INDEX events_undispatched_idx ON events (created_at, id) WHERE dispatched_at IS NULL;

-- Webhook endpoints of an environment. The signing secret (Standard Webhooks `whsec_...`) is sealed.
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  event_names text[] NOT NULL,
  secret_sealed text NOT NULL,
  enabled_at timestamptz,
  -- Why it was disabled by the service (gone, failing), null when by a developer or enabled.
  disabled_reason text,
  -- Start of the current run of failed deliveries; null once a delivery succeeds.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_environment_idx ON webhooks (environment_id, created_at DESC, id);

-- One message per event per subscribed endpoint (and one ping per new endpoint): the envelope exactly as
-- it is sent, built once.
CREATE TABLE webhook_messages (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id uuid REFERENCES events (id) ON DELETE CASCADE,
  event_name text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  redeliveries integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_messages_webhook_idx ON webhook_messages (environment_id, webhook_id, created_at DESC, id);

-- Every delivery attempt: what was sent, what came back, how long it took.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  message_id uuid NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  redelivery boolean NOT NULL DEFAULT false,
  request_url text NOT NULL,
  request_headers jsonb NOT NULL DEFAULT '{}',
  request_body text NOT NULL,
  response_status integer,
  response_body_excerpt text,
  error text,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_deliveries_message_idx ON webhook_deliveries (environment_id, message_id, created_at, id);
