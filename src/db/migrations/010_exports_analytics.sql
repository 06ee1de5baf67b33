-- Exports: background files of an environment's data (Temporal workflow export/<id>). The file itself is
-- stored as ordered chunks of about 1 MiB so that neither writing nor downloading holds it in memory.
CREATE TABLE exports (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  model text NOT NULL CHECK (model IN ('users')),
  format text NOT NULL CHECK (format IN ('csv', 'json')),
  filter jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  row_count integer NOT NULL DEFAULT 0,
  byte_size bigint NOT NULL DEFAULT 0,
  error text,
  -- The activity attempt that owns the chunks: a superseded attempt (still running after a timeout) stops
  -- writing as soon as it sees a newer one here.
  run_attempt integer NOT NULL DEFAULT 0,
  created_by_token_id uuid,
  created_by_member_id uuid REFERENCES members (id) ON DELETE SET NULL,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX exports_environment_idx ON exports (environment_id, created_at DESC, id);

CREATE TABLE export_chunks (
  export_id uuid NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  data bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (export_id, seq)
);
-- Chunks are large and read once, in order: keep them out of the main heap's TOAST compression attempts.
ALTER TABLE export_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- Visits of the environment's client applications (written by the SDK surface). visitor_id is the SDK's
-- anonymous, per-browser id; user_id is set once the visitor is signed in.
CREATE TABLE visits (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  visitor_id text NOT NULL CHECK (length(visitor_id) BETWEEN 1 AND 255),
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Analytics read ranges of one environment by time; the included column answers unique-visitor counts
-- from the index alone.
CREATE INDEX visits_environment_created_idx ON visits (environment_id, created_at) INCLUDE (visitor_id);

-- Range scans of the analytics queries (users already has (environment_id, created_at DESC, id)).
CREATE INDEX wallets_environment_created_idx ON wallets (environment_id, created_at) INCLUDE (chain, provider, name)
  WHERE deleted_at IS NULL;
CREATE INDEX sessions_environment_created_idx ON sessions (environment_id, created_at) INCLUDE (user_id);

-- The audit log's resource filters (the listing itself uses the (scope, created_at DESC, id) indexes).
CREATE INDEX audit_log_environment_resource_idx ON audit_log (environment_id, resource_type, resource_id, created_at DESC, id);
CREATE INDEX audit_log_organization_resource_idx ON audit_log (organization_id, resource_type, resource_id, created_at DESC, id);
