import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * Latency buckets in seconds: a cached read answers in a few hundred microseconds, a sign-in in tens of
 * milliseconds, a call waiting on a workflow in seconds.
 */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Every instrument of a process, on a registry of its own (never prom-client's global one, so that the
 * several runtimes a test file starts in one process each count their own). Labels are all from small fixed
 * sets: procedure and route templates, codes, methods and outcomes; never a tenant, a user, an address or a
 * token. The catalogue is in docs (the metric names are what deploy/grafana/sigil-dashboard.json queries).
 */
export function createInstruments(opts: { processMetrics: boolean }) {
  const registry = new Registry();
  // Node's own (CPU, memory, event-loop lag: the lag is sampled continuously, so it goes with SIGIL_METRICS).
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const on = { registers: [registry] };
  return {
    registry,
    rpcRequests: new Counter({ ...on, name: "sigil_rpc_requests_total", help: "RPCs called over Connect, gRPC or gRPC-Web (REST calls are counted by route: sigil_http_requests_total).", labelNames: ["procedure"] }),
    rpcErrors: new Counter({
      ...on,
      name: "sigil_rpc_errors_total",
      help: "RPCs answered with an error, by Connect code and the spec's error code.",
      labelNames: ["procedure", "code", "error_code"],
    }),
    rpcDuration: new Histogram({ ...on, name: "sigil_rpc_duration_seconds", help: "Time to answer an RPC (a server stream: to its first message).", labelNames: ["procedure"], buckets: LATENCY_BUCKETS }),
    httpRequests: new Counter({
      ...on,
      name: "sigil_http_requests_total",
      help: "REST requests answered, by method, route template and HTTP status.",
      labelNames: ["method", "route", "status"],
    }),
    httpErrors: new Counter({
      ...on,
      name: "sigil_http_errors_total",
      help: "REST requests answered with a status of 400 or more, by the spec's error code.",
      labelNames: ["method", "route", "status", "error_code"],
    }),
    httpDuration: new Histogram({
      ...on,
      name: "sigil_http_request_duration_seconds",
      help: "Time to answer a REST request, by method and route template.",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
    }),
    signIns: new Counter({ ...on, name: "sigil_sign_ins_total", help: "Sign-ins finished (succeeded or failed), by method.", labelNames: ["method"] }),
    signInFailures: new Counter({ ...on, name: "sigil_sign_in_failures_total", help: "Sign-ins that failed, by method and error code.", labelNames: ["method", "error_code"] }),
    sessionsIssued: new Counter({
      ...on,
      name: "sigil_sessions_issued_total",
      help: "Sessions opened by a sign-in, by the kind of credential proven and whether a second factor is still owed.",
      labelNames: ["credential", "second_factor_pending"],
    }),
    webhookAttempts: new Counter({ ...on, name: "sigil_webhook_delivery_attempts_total", help: "Webhook delivery attempts, by outcome.", labelNames: ["outcome"] }),
    workflowStarts: new Counter({ ...on, name: "sigil_workflow_starts_total", help: "Workflow starts asked of Temporal (a start that joins a running one included), by workflow type.", labelNames: ["workflow_type"] }),
    workflowStartFailures: new Counter({ ...on, name: "sigil_workflow_start_failures_total", help: "Workflow starts Temporal did not accept, by workflow type.", labelNames: ["workflow_type"] }),
    webhookBacklog: new Gauge({ ...on, name: "sigil_webhook_backlog_messages", help: "Webhook messages not yet delivered, by state (read at scrape).", labelNames: ["state"] }),
    webhookOldestPending: new Gauge({ ...on, name: "sigil_webhook_oldest_pending_seconds", help: "Age of the oldest webhook message not yet delivered (0 when none; read at scrape)." }),
    poolConnections: new Gauge({ ...on, name: "sigil_db_pool_connections", help: "Postgres pool connections by state: total, idle, and queries waiting for one (read at scrape).", labelNames: ["state"] }),
    storeUp: new Gauge({ ...on, name: "sigil_store_up", help: "1 when the store (Redis, or the in-process one) answered a ping at scrape, else 0.", labelNames: ["store"] }),
    storePing: new Gauge({ ...on, name: "sigil_store_ping_seconds", help: "Time the store took to answer the scrape's ping.", labelNames: ["store"] }),
  };
}

export type Instruments = ReturnType<typeof createInstruments>;
