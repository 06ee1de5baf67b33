import type { RestAnswerSeen } from "../gateway/index.js";
import type { Logger } from "../log.js";

/**
 * The one line of a REST call: `http` with requestId, method, route (the rule's template, never the path's
 * values), status (the HTTP status answered), the error body's code and ms. Its RPC's own line
 * is not written (src/rpc/interceptors/request-log.ts); a 5xx is a warning.
 */
export function restAnswerLogger(log: Logger): (answer: RestAnswerSeen) => void {
  return (a) => {
    const line = {
      requestId: a.requestId,
      method: a.method,
      route: a.route,
      status: a.status,
      ...(a.errorCode ? { code: a.errorCode } : {}),
      ms: Math.round(a.seconds * 1000),
    };
    if (a.status >= 500) log.warn("http", line);
    else log.info("http", line);
  };
}
