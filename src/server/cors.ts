import { cors as connectCors } from "@connectrpc/connect";
import { sdkEnvironmentOf, type OriginVerdict } from "./sdk-origins.js";
import type { Req, Res } from "./replies.js";

type Handler = (req: Req, res: Res) => void;

/** Request headers a browser script may send: Connect / gRPC-Web's own plus the API's. */
const ALLOWED_HEADERS = [...connectCors.allowedHeaders, "Authorization", "Accept", "X-Request-Id", "X-Mfa-Auth-Token", "Idempotency-Key"].join(", ");
/** Response headers a browser script may read: Connect / gRPC-Web's own plus the API's. */
const EXPOSED_HEADERS = [...connectCors.exposedHeaders, "X-Request-Id", "Retry-After", "Content-Disposition", "Allow"].join(", ");
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = "7200";

/** Decides the CORS answer for a page on `origin` calling environment `environmentId`'s SDK surface. */
type SdkOriginVerdict = (environmentId: string, origin: string) => Promise<OriginVerdict>;

/**
 * Lets browser apps call the API. Every caller authenticates with a bearer token in the Authorization
 * header (never a cookie), so a page on another origin can only act with a token it already holds: `*`
 * without credentials grants nothing a plain HTTP client lacks, and the management surface answers `*`.
 * The SDK surface (/api/v0/sdk/{environmentId}/...) follows the environment's registered origins when it has
 * any (`sdkOriginVerdict`): the allow-origin header then echoes the page's origin only when it is one of
 * them, and is left out for any other (preflights too, so the browser stops there); `Vary: Origin` because
 * the answer depends on it. Preflights (OPTIONS with Access-Control-Request-Method) are answered here with
 * the methods the path really has; `allowedMethods` answers undefined for a path that does not exist (404).
 * Every other answer to a request with an Origin carries the allow-origin and expose headers when allowed.
 */
export function withCors(
  handler: Handler,
  allowedMethods: (path: string) => readonly string[] | undefined,
  sdkOriginVerdict?: SdkOriginVerdict,
): Handler {
  function answer(req: Req, res: Res, path: string, origin: string, verdict: OriginVerdict, sdk: boolean) {
    const allowOrigin = verdict === "any" ? "*" : verdict === "this" ? origin : undefined;
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      const methods = allowedMethods(path);
      if (methods === undefined) {
        res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ error: "no such path", code: "not_found" }));
        return;
      }
      const vary = sdk ? "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" : "Access-Control-Request-Method, Access-Control-Request-Headers";
      res.writeHead(
        204,
        allowOrigin === undefined
          ? { vary }
          : {
              "access-control-allow-origin": allowOrigin,
              "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
              "access-control-allow-headers": ALLOWED_HEADERS,
              "access-control-max-age": PREFLIGHT_MAX_AGE,
              vary,
            },
      );
      res.end();
      return;
    }
    if (sdk) res.setHeader("vary", "Origin");
    if (allowOrigin !== undefined) {
      res.setHeader("access-control-allow-origin", allowOrigin);
      res.setHeader("access-control-expose-headers", EXPOSED_HEADERS);
    }
    handler(req, res);
  }

  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined) return handler(req, res);
    const path = (req.url ?? "/").split("?")[0];
    const environmentId = sdkOriginVerdict ? sdkEnvironmentOf(path) : undefined;
    if (!sdkOriginVerdict || environmentId === undefined) return answer(req, res, path, origin, "any", false);
    // The verdict never rejects (a failed lookup is "none"); the request body waits unread meanwhile.
    void sdkOriginVerdict(environmentId, origin).then((verdict) => answer(req, res, path, origin, verdict, true));
  };
}
