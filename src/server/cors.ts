import type http from "node:http";
import type http2 from "node:http2";
import { cors as connectCors } from "@connectrpc/connect";

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;
type Handler = (req: Req, res: Res) => void;

/** Request headers a browser script may send: Connect / gRPC-Web's own plus the API's. */
const ALLOWED_HEADERS = [...connectCors.allowedHeaders, "Authorization", "Accept", "X-Request-Id"].join(", ");
/** Response headers a browser script may read: Connect / gRPC-Web's own plus the API's. */
const EXPOSED_HEADERS = [...connectCors.exposedHeaders, "X-Request-Id", "Retry-After", "Content-Disposition", "Allow"].join(", ");
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = "7200";

/**
 * Lets browser apps on any origin call the API. Every caller authenticates with a bearer token in the
 * Authorization header (never a cookie), so a page on another origin can only act with a token it already
 * holds: `*` without credentials grants nothing a plain HTTP client lacks. Preflights (OPTIONS with
 * Access-Control-Request-Method) are answered here with the methods the path really has; `allowedMethods`
 * answers undefined for a path that does not exist (404). Every other answer to a request with an Origin
 * carries the allow-origin and expose headers.
 */
export function withCors(handler: Handler, allowedMethods: (path: string) => readonly string[] | undefined): Handler {
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined) return handler(req, res);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      const methods = allowedMethods((req.url ?? "/").split("?")[0]);
      if (methods === undefined) {
        res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ error: "no such path", code: "not_found" }));
        return;
      }
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": PREFLIGHT_MAX_AGE,
        vary: "Access-Control-Request-Method, Access-Control-Request-Headers",
      });
      res.end();
      return;
    }
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", EXPOSED_HEADERS);
    handler(req, res);
  };
}
