import { createContextValues, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip, connectNodeAdapter } from "@connectrpc/connect-node";
import { file_health_v1_health } from "../gen/health/v1/health_pb.js";
import type { Deps } from "../domain/deps.js";
import { createRestGateway } from "../gateway/index.js";
import { registerHealth } from "../rpc/health.js";
import { createInterceptors } from "../rpc/interceptors/index.js";
import { registerReflection } from "../rpc/reflection.js";
import { apiFiles, apiServices, createApiRoutes } from "../rpc/routes.js";
import { clientIpKey } from "../rpc/context.js";
import { withCors } from "./cors.js";
import { createSdkOriginCheck } from "./sdk-origins.js";
import { createInProcessTransport } from "./in-process-transport.js";
import { createDirectUnaryHandler } from "./direct-unary/index.js";
import { createClientAddressOf } from "./client-address.js";
import { restAnswerLogger } from "./request-log.js";
import { nameRestSpan, traceRequests } from "./tracing.js";
import { activeTracing } from "../infra/tracing.js";
import { createProcessMetrics, type ProcessMetrics } from "../observability/metrics/process-metrics.js";
import { scrapeMetrics } from "../observability/metrics/scrape.js";
import { OPERATOR_PATHS, runChecks, serveOperatorPath, type ReadinessCheck } from "./probes.js";
import { DEMO_METHODS, createDemoFiles, isDemoPath } from "./demo.js";
import { API_DOCS_METHODS, createApiDocs, isApiDocsPath } from "./api-docs.js";
import type { Req, Res } from "./replies.js";

export type { ReadinessCheck } from "./probes.js";

/** What a process gives its API besides the checks of /healthz. */
export interface ApiHandlerOptions {
  /** The process's metrics (shared with its worker in dev); by default the API's own. */
  metrics?: ProcessMetrics;
  /** The checks of /readyz (by default those of /healthz). */
  ready?: readonly ReadinessCheck[];
  /** True once the process is stopping (/readyz and /livez then answer 503). */
  draining?: () => boolean;
}


/** Answers at least this long are compressed when the caller accepts it (connect-node's default). */
const COMPRESS_MIN_BYTES = 1024;

/**
 * The HTTP handler of the api process: Connect, gRPC and gRPC-Web at the RPC paths; everything else falls
 * back to /healthz or the REST gateway, which dispatches in process through the same interceptors.
 */
export function createApiHandler(deps: Deps, readiness: readonly ReadinessCheck[], options: ApiHandlerOptions = {}) {
  const apiRoutes = createApiRoutes(deps);
  const logRest = restAnswerLogger(deps.log);
  // A tracing process (src/infra/tracing.ts) opens a server span per request; otherwise nothing is wrapped.
  const tracing = activeTracing();
  const metrics = options.metrics ?? createProcessMetrics({ enabled: deps.config.metricsEnabled });
  // Counting first: a call refused by any step of the chain is counted with its code.
  const interceptors = [...metrics.interceptors, ...createInterceptors(deps)];
  // REST calls the handlers in process through the same interceptors, without a round trip through bytes.
  const transport = createInProcessTransport(apiRoutes, interceptors, createRouterTransport(apiRoutes, { router: { interceptors } }));
  // One reading of the client address for every way in (REST, Connect, gRPC, gRPC-Web).
  const clientAddressOf = createClientAddressOf(deps.config.trustedProxies);
  const gateway = createRestGateway({
    services: apiServices,
    transport,
    clientAddress: clientAddressOf,
    maxBodyBytes: deps.config.maxBodyBytes,
    onInternalError: (err) => deps.log.error("gateway error", { error: err instanceof Error ? err.message : String(err) }),
    onAnswered: (answer) => {
      metrics.restAnswered(answer);
      logRest(answer);
      if (tracing) nameRestSpan(answer);
    },
  });
  const operator = {
    ready: options.ready ?? readiness,
    draining: options.draining ?? (() => false),
    metrics: () => scrapeMetrics(metrics, deps),
  };

  const serveDemo = createDemoFiles();
  const serveApiDocs = createApiDocs();

  const fallback = (req: Req, res: Res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz" && req.method === "GET") {
      void runChecks(readiness).then((r) => {
        res.writeHead(r.ok ? 200 : 503, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: r.ok ? "ok" : "unavailable", checks: r.checks }));
      });
      return;
    }
    if (serveOperatorPath(operator, path, req, res)) return;
    if (serveDemo(path, req, res)) return;
    if (serveApiDocs(path, req, res)) return;
    gateway(req, res);
  };

  const routes = (router: ConnectRouter) => {
    apiRoutes(router);
    registerHealth(router, async () => ((await runChecks(readiness)).ok ? "SERVING" : "NOT_SERVING"));
    registerReflection(router, [...apiFiles, file_health_v1_health]);
  };

  // RPC paths (`/<package>.<Service>/<Method>`) take Connect's POST and GET; the rest is the gateway's.
  const rpcPaths = new Set(apiServices.flatMap((s) => s.methods.map((m) => `/${s.typeName}/${m.name}`)));
  const allowedMethods = (path: string) => {
    if (rpcPaths.has(path)) return ["POST", "GET"];
    if (path === "/healthz" || OPERATOR_PATHS.has(path)) return ["GET"];
    if (isDemoPath(path)) return DEMO_METHODS;
    if (isApiDocsPath(path)) return API_DOCS_METHODS;
    return gateway.allowedMethods(path);
  };

  const acceptCompression = [compressionGzip, compressionBrotli];
  const contextValues = (req: Req) => {
    const values = createContextValues();
    // Never empty: an empty key would let CLIENT_IP_HEADER (the gateway's, but also any caller's) decide.
    values.set(clientIpKey, clientAddressOf(req) || "unknown");
    return values;
  };
  const adapter = connectNodeAdapter({
    routes,
    interceptors,
    // The adapter's response type omits write(); ours writes through writeHead/end only.
    fallback: (req, res) => fallback(req, res as Res),
    readMaxBytes: deps.config.maxBodyBytes,
    acceptCompression,
    compressMinBytes: COMPRESS_MIN_BYTES,
    contextValues,
  });
  const sdkOrigins = createSdkOriginCheck(deps, deps.config.corsOriginCacheMs);
  const traced = (handler: ReturnType<typeof withCors>) => (tracing ? traceRequests(handler, tracing, { isRpcPath: (path) => rpcPaths.has(path), untraced: (path) => path === "/healthz" || OPERATOR_PATHS.has(path) }) : handler);
  if (!deps.config.directUnary) return traced(withCors(adapter, allowedMethods, sdkOrigins));
  const directUnary = createDirectUnaryHandler({
    services: apiServices,
    transport,
    readMaxBytes: deps.config.maxBodyBytes,
    acceptCompression,
    compressMinBytes: COMPRESS_MIN_BYTES,
    contextValues,
  });
  return traced(withCors((req, res) => directUnary(req, res) || adapter(req, res), allowedMethods, sdkOrigins));
}
