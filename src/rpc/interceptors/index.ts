import type { Interceptor } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { authnInterceptor } from "./authn.js";
import { errorInterceptor } from "./errors.js";
import { rateLimitInterceptor } from "./rate-limit.js";
import { requestLogInterceptor } from "./request-log.js";
import { tenancyInterceptor } from "./tenancy.js";
import { tracingInterceptor } from "./tracing.js";
import { activeTracing } from "../../infra/tracing.js";
import { validationInterceptor } from "./validation.js";

/**
 * The chain every call runs through, RPC and REST alike, outermost first: request id and log line, error
 * mapping, authentication and permission, rate limit, input validation, then the tenant the RPC declares
 * (after validation, so a malformed id is a 400 rather than a lookup). The one field authentication reads
 * (an end user's environment) it validates itself first, by the same rules.
 */
export function createInterceptors(deps: Deps): Interceptor[] {
  // A tracing process (src/infra/tracing.ts) opens the call's span first, so that every step runs in it.
  const tracing = activeTracing();
  return [
    ...(tracing ? [tracingInterceptor(tracing.tracer)] : []),
    requestLogInterceptor(deps.log),
    errorInterceptor(deps.log, deps.config.undeclaredErrors),
    authnInterceptor(deps),
    rateLimitInterceptor(deps.store, deps.config.rateLimitPerMinute, deps.config.sdkRateLimits),
    validationInterceptor(),
    tenancyInterceptor(deps),
  ];
}
