import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { DomainError, toConnectError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../../errors.js";
import { asUnavailable } from "../../infra/dependency-errors.js";
import type { UndeclaredErrorSettings } from "../../config.js";
import type { Logger } from "../../log.js";
import { requestIdKey } from "../context.js";
import { undeclaredErrorCheck } from "../undeclared-errors.js";

/**
 * Maps DomainErrors to ConnectErrors carrying the kind/code/payload metadata the gateway turns into the
 * spec's body. Anything unexpected is logged with the request id and answered as a bare internal error,
 * so no internals (SQL, stack traces) reach a caller. A domain error the RPC does not declare is noted, and
 * under enforcement answered as 500 undeclared_error instead (src/rpc/undeclared-errors.ts).
 */
export function errorInterceptor(log: Logger, undeclared?: UndeclaredErrorSettings): Interceptor {
  const undeclaredInstead = undeclaredErrorCheck(log, undeclared);
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      // A dependency that is down answers UNAVAILABLE (503) with Retry-After, whatever layer noticed it.
      const down = asUnavailable(err);
      if (down) {
        log.warn("dependency unavailable", { requestId: req.contextValues.get(requestIdKey), code: down.code, error: err instanceof Error ? err.message : String(err) });
        const instead = undeclaredInstead(req.method, down);
        if (instead) throw toConnectError(instead);
        // An error that names its own wait (a vendor's Retry-After, passed on) keeps it; the default otherwise.
        throw toConnectError(down, retryAfterOf(down) ?? { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
      }
      if (err instanceof DomainError) {
        const instead = undeclaredInstead(req.method, err);
        throw instead ? toConnectError(instead) : toConnectError(err, retryAfterOf(err));
      }
      if (err instanceof ConnectError) {
        if (err.code !== Code.Internal && err.code !== Code.Unknown) throw err;
        log.error("internal error", { requestId: req.contextValues.get(requestIdKey), error: err.message, cause: String(err.cause ?? "") });
        throw new ConnectError("internal error", Code.Internal);
      }
      log.error("internal error", {
        requestId: req.contextValues.get(requestIdKey),
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
      throw new ConnectError("internal error", Code.Internal);
    }
  };
}

/**
 * A domain limit or an unavailable dependency that says how long to wait (payload.retryAfterSeconds, e.g. the
 * per-address code sends, a chain node that failed) answers with Retry-After, wherever it was raised.
 */
function retryAfterOf(err: DomainError): Record<string, string> | undefined {
  const seconds = err.kind === "rate_limited" || err.kind === "unavailable" ? err.payload?.retryAfterSeconds : undefined;
  return typeof seconds === "number" ? { "retry-after": String(Math.max(1, Math.ceil(seconds))) } : undefined;
}
