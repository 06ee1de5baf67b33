import { randomUUID } from "node:crypto";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../../log.js";
import { requestIdKey } from "../context.js";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Gives every call a request id (the caller's x-request-id when well-formed), echoes it, logs one line. */
export function requestLogInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    const given = req.header.get("x-request-id");
    const id = given && REQUEST_ID.test(given) ? given : randomUUID();
    req.contextValues.set(requestIdKey, id);
    const started = performance.now();
    const method = `${req.service.typeName}/${req.method.name}`;
    try {
      const res = await next(req);
      res.header.set("x-request-id", id);
      log.info("rpc", { requestId: id, method, code: "ok", ms: Math.round(performance.now() - started) });
      return res;
    } catch (err) {
      const ce = ConnectError.from(err);
      ce.metadata.set("x-request-id", id);
      log.info("rpc", { requestId: id, method, code: ce.code, ms: Math.round(performance.now() - started) });
      throw ce;
    }
  };
}
