import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus, HealthCheckResponseSchema } from "../gen/health/v1/health_pb.js";

export type HealthStatus = "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";

export interface HealthOptions {
  /** How often Watch re-reads the status; 2 s by default (tests shorten it). */
  pollIntervalMs?: number;
}

const toProto: Record<HealthStatus, HealthCheckResponse_ServingStatus> = {
  SERVING: HealthCheckResponse_ServingStatus.SERVING,
  NOT_SERVING: HealthCheckResponse_ServingStatus.NOT_SERVING,
  SERVICE_UNKNOWN: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN,
};

/**
 * grpc.health.v1.Health, the protocol load balancers and Kubernetes gRPC probes speak. `getStatus("")`
 * is the health of the server as a whole. Watch polls rather than subscribing because the inputs (database,
 * Redis, Temporal reachability) have no change events of their own. List is not implemented: the caller
 * decides which service names exist, and clients treat Unimplemented as "not supported".
 */
export function registerHealth(
  router: ConnectRouter,
  getStatus: (service: string) => Promise<HealthStatus>,
  options: HealthOptions = {},
): void {
  const pollIntervalMs = options.pollIntervalMs ?? 2000;
  router.service(Health, {
    async check(req) {
      const status = await getStatus(req.service);
      // The health protocol says Check answers NOT_FOUND for a service it does not know.
      if (status === "SERVICE_UNKNOWN") throw new ConnectError(`unknown service "${req.service}"`, Code.NotFound);
      return create(HealthCheckResponseSchema, { status: toProto[status] });
    },
    async *watch(req, ctx) {
      // Watch, unlike Check, reports an unknown service in-band and keeps the call open.
      let last = await getStatus(req.service);
      yield create(HealthCheckResponseSchema, { status: toProto[last] });
      while (await sleep(pollIntervalMs, ctx.signal)) {
        const now = await getStatus(req.service);
        if (now === last) continue;
        last = now;
        yield create(HealthCheckResponseSchema, { status: toProto[now] });
      }
    },
  });
}

/** Resolves true after `ms`, or false as soon as the call is aborted (client gone, deadline, shutdown). */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
