import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";

/**
 * A span per call, named by its procedure (`sigil.users.v0.UsersService/GetUser`), child of the HTTP
 * request's span (src/server/tracing.ts): everything the call does (SQL, workflow starts) is under it.
 * Only in the chain of a tracing process (./index.ts).
 */
export function tracingInterceptor(tracer: Tracer): Interceptor {
  return (next) => (req) => {
    const procedure = `${req.service.typeName}/${req.method.name}`;
    return tracer.startActiveSpan(
      procedure,
      { kind: SpanKind.INTERNAL, attributes: { "rpc.system": "connect_rpc", "rpc.service": req.service.typeName, "rpc.method": req.method.name } },
      async (span) => {
        try {
          return await next(req);
        } catch (err) {
          const code = ConnectError.from(err).code;
          span.setAttribute("rpc.connect_rpc.error_code", Code[code]);
          // A caller's mistake (not found, invalid, denied) is a finished call, not a failed span.
          if (code === Code.Internal || code === Code.Unknown || code === Code.DataLoss || code === Code.Unavailable) {
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          throw err;
        } finally {
          span.end();
        }
      },
    );
  };
}
