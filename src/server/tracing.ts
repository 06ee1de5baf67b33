import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type TextMapGetter } from "@opentelemetry/api";
import type { Tracing } from "../infra/tracing.js";
import type { RestAnswerSeen } from "../gateway/index.js";
import type { Req, Res } from "./replies.js";

type Handler = (req: Req, res: Res) => void;

const headerGetter: TextMapGetter<Req["headers"]> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

/**
 * The HTTP server span of every request (HTTP/1.1 and h2c alike), continuing the caller's trace when it
 * sends a W3C traceparent: the root of what the request does (the RPC span, SQL, workflow starts). Named
 * by the method until the gateway names its route (`nameRestSpan`), or by the procedure for an RPC path;
 * the URL itself is not recorded (a path may carry an id, a query a code).
 */
export function traceRequests(
  handler: Handler,
  tracing: Tracing,
  paths: { isRpcPath(path: string): boolean; /** Probes and scrapes: no trace every few seconds. */ untraced(path: string): boolean },
): Handler {
  return (req, res) => {
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0]!;
    if (paths.untraced(path)) return handler(req, res);
    const rpc = paths.isRpcPath(path);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
    const span = tracing.tracer.startSpan(
      rpc ? `${method} ${path}` : method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "network.protocol.version": String(req.httpVersion), ...(rpc ? { "http.route": path } : {}) } },
      parent,
    );
    res.once("close", () => {
      span.setAttribute("http.response.status_code", res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => handler(req, res));
  };
}

/** Names the request's span by its REST route once the gateway has matched it ("POST /api/v0/.../exports"). */
export function nameRestSpan(answer: RestAnswerSeen): void {
  if (!answer.route) return;
  const span = trace.getActiveSpan();
  span?.updateName(`${answer.method} ${answer.route}`);
  span?.setAttribute("http.route", answer.route);
}
