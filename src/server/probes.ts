import type { Req, Res } from "./replies.js";

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}


/** A check that has not answered by then counts as failed: a probe answers fast even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 1_500;

function bounded(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check.check().catch(() => false), timeout]).finally(() => clearTimeout(timer));
}

export async function runChecks(checks: readonly ReadinessCheck[]) {
  const results = await Promise.all(checks.map(async (c) => [c.name, await bounded(c)] as const));
  return { ok: results.every(([, ok]) => ok), checks: Object.fromEntries(results) };
}

/** The operators' paths besides /healthz, all GET: served by the api and by a worker-only process's listener. */
export const OPERATOR_PATHS = new Set(["/livez", "/readyz", "/metrics"]);

export interface OperatorEndpoints {
  /** What /readyz asks: the dependencies this process cannot serve without (database, store, workflow engine). */
  ready: readonly ReadinessCheck[];
  /** True once the process was asked to stop: /readyz then answers 503 so that traffic goes elsewhere. */
  draining: () => boolean;
  /** The /metrics text. */
  metrics: () => Promise<string>;
}

/**
 * GET /livez: the process runs (its event loop answers) and is not stopping; no dependency is asked, so an
 * orchestrator never restarts a healthy process because Postgres is down. GET /readyz: every dependency
 * answered within CHECK_TIMEOUT_MS (503 names those that did not), and the process is not draining. GET
 * /metrics: the Prometheus text. Answers true when it took the request.
 */
export function serveOperatorPath(endpoints: OperatorEndpoints, path: string, req: Req, res: Res): boolean {
  if (!OPERATOR_PATHS.has(path) || req.method !== "GET") return false;
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(JSON.stringify(body));
  };
  if (path === "/livez") {
    if (endpoints.draining()) json(503, { status: "stopping" });
    else json(200, { status: "ok" });
    return true;
  }
  if (path === "/readyz") {
    void runChecks(endpoints.ready).then((r) => {
      const stopping = endpoints.draining();
      const ok = r.ok && !stopping;
      json(ok ? 200 : 503, { status: ok ? "ok" : stopping ? "stopping" : "unavailable", checks: r.checks });
    });
    return true;
  }
  void endpoints.metrics().then(
    (text) => (res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }), res.end(text)),
    () => (res.writeHead(503, { "content-type": "text/plain" }), res.end("metrics unavailable\n")),
  );
  return true;
}
