import { randomUUID } from "node:crypto";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Logger } from "../../log.js";
import { requestIdKey, restRouteKey } from "../context.js";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** The caller's x-request-id when well-formed (it then ties the caller's logs to ours), else a new one. */
export function requestIdOf(given: string | null | undefined): string {
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Codes that say the service failed rather than the caller: their line is a warning. */
const SERVER_FAULTS = new Set([Code.Internal, Code.Unknown, Code.DataLoss, Code.Unavailable, Code.DeadlineExceeded]);

/**
 * Gives every call a request id, echoes it, and logs one line per Connect / gRPC / gRPC-Web call:
 * `rpc` with requestId, procedure, code (Connect's name: "ok", "not_found"...) and ms. A call of the REST
 * gateway is logged by the gateway instead (one `http` line with its route and HTTP status).
 */
export function requestLogInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    const id = requestIdOf(req.header.get("x-request-id"));
    req.contextValues.set(requestIdKey, id);
    const viaRest = req.contextValues.get(restRouteKey) !== "";
    const started = performance.now();
    const procedure = `${req.service.typeName}/${req.method.name}`;
    try {
      const res = await next(req);
      res.header.set("x-request-id", id);
      if (!viaRest) log.info("rpc", { requestId: id, procedure, code: "ok", ms: Math.round(performance.now() - started) });
      return res;
    } catch (err) {
      const ce = ConnectError.from(err);
      ce.metadata.set("x-request-id", id);
      if (!viaRest) {
        const line = { requestId: id, procedure, code: codeToString(ce.code), ms: Math.round(performance.now() - started) };
        if (SERVER_FAULTS.has(ce.code)) log.warn("rpc", line);
        else log.info("rpc", line);
      }
      throw ce;
    }
  };
}
