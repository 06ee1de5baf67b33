import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { DomainError, toConnectError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { requestIdKey } from "../context.js";

/**
 * Maps DomainErrors to ConnectErrors carrying the kind/code/payload metadata the gateway turns into the
 * spec's body. Anything unexpected is logged with the request id and answered as a bare internal error,
 * so no internals (SQL, stack traces) reach a caller.
 */
export function errorInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof DomainError) throw toConnectError(err);
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
