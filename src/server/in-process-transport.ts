import { create, isMessage, type DescMessage, type DescMethodUnary, type Message, type MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  createHandlerContext,
  createMethodImplSpec,
  createServiceImplSpec,
  type ConnectRouter,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";

/**
 * The way into the RPC handlers for the REST gateway and for the direct unary answers of Connect and gRPC
 * (src/server/direct-unary/): a Transport that calls the registered implementation of a unary RPC directly,
 * through the same interceptors and with the same kind of handler context as connect-node's handlers, but
 * without encoding the request to bytes and parsing it back, nor the response. createRouterTransport did
 * both, which cost a REST call about a fifth of its CPU (docs/benchmarks.md, 2026-11-23). The response is
 * the handler's own result, a message or its init shape: each caller builds only what it writes (the REST
 * JSON straight from the result, src/gateway/present.ts; the protocol's message otherwise). Interceptors see
 * that result as `res.message`, and none reads it (they act on requests, errors and headers). Streaming
 * calls go to `fallback`.
 */
export function createInProcessTransport(routes: (router: ConnectRouter) => void, interceptors: Interceptor[], fallback: Transport): Transport {
  const specs = new Map<DescMethodUnary, Extract<MethodImplSpec, { kind: "unary" }>>();
  const keep = (spec: MethodImplSpec) => {
    if (spec.kind === "unary") specs.set(spec.method, spec);
  };
  // A router that only records the implementations; the real router is built from the same routes.
  const recorder: ConnectRouter = {
    handlers: [],
    service(service, implementation) {
      Object.values(createServiceImplSpec(service, implementation).methods).forEach(keep);
      return this;
    },
    rpc(method, impl) {
      keep(createMethodImplSpec(method, impl));
      return this;
    },
  };
  routes(recorder);

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const spec = specs.get(method as unknown as DescMethodUnary);
      if (!spec) return fallback.unary(method, signal, timeoutMs, header, input, contextValues);
      const context = handlerContext({
        service: method.parent,
        method,
        protocolName: "connect",
        requestMethod: "POST",
        url: `/${method.parent.typeName}/${method.name}`,
        timeoutMs,
        requestSignal: signal,
        requestHeader: header,
        contextValues: contextValues ?? createContextValues(),
      });
      const message = isMessage(input, method.input) ? input : create(method.input, input);
      try {
        const output = await invokeUnary(spec, context, message, interceptors);
        return { stream: false, service: method.parent, method, header: context.responseHeader, trailer: context.responseTrailer, message: output as never };
      } catch (err) {
        // Over the wire a client sees the handler's response headers and trailers with the error; so here.
        // As connect's own handlers: only a ConnectError speaks; anything else is an internal error.
        const ce = err instanceof ConnectError ? err : new ConnectError("internal error", Code.Internal, undefined, undefined, err);
        for (const h of [context.responseHeader, context.responseTrailer]) h.forEach((v, k) => ce.metadata.has(k) || ce.metadata.set(k, v));
        throw ce;
      }
      // The context is not aborted at the end (Connect's server handler does): the abort reason is a
      // DOMException built per call, a visible cost in the profile, and the signal dies with the context.
    },
    stream: (...args) => fallback.stream(...args),
  };
}

/**
 * Connect's createHandlerContext, lean for a call that names no deadline: the caller's own per-request signal
 * (the gateway's, aborted when the client goes away) is the context's signal. Connect links it to a deadline
 * controller and a controller of its own, three AbortControllers with their listeners per call: about 9 % of
 * a light call's CPU (a nonce) in the api's profile. With a deadline, or no signal, Connect's own.
 */
function handlerContext(init: Parameters<typeof createHandlerContext>[0]): HandlerContext {
  // The signal is the caller's: only the caller aborts it (this transport never aborts a context).
  const signal = init.requestSignal;
  if (init.timeoutMs !== undefined || !signal) return createHandlerContext(init);
  return {
    ...init,
    signal,
    timeoutMs: () => undefined,
    requestHeader: new Headers(init.requestHeader),
    responseHeader: new Headers(init.responseHeader),
    responseTrailer: new Headers(init.responseTrailer),
    values: init.contextValues ?? createContextValues(),
  };
}

/**
 * Connect's invokeUnaryImplementation (@connectrpc/connect/protocol) without its last step, `create` of the
 * output: the same request and response the interceptors see, the handler called with the context merged
 * with what interceptors changed, response headers and trailers copied back.
 */
async function invokeUnary(
  spec: Extract<MethodImplSpec, { kind: "unary" }>,
  context: HandlerContext,
  input: Message,
  interceptors: Interceptor[],
): Promise<unknown> {
  const service = spec.method.parent;
  let next: UnaryFn = async (req) => {
    const output = await spec.impl(req.message as never, { ...context, service: req.service, requestHeader: req.header, signal: req.signal, values: req.contextValues });
    return { stream: false, service, method: spec.method, header: context.responseHeader, trailer: context.responseTrailer, message: output as Message };
  };
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i](next as never) as UnaryFn;
  const res = await next({
    stream: false,
    service,
    method: spec.method,
    requestMethod: context.requestMethod,
    url: context.url,
    signal: context.signal,
    header: context.requestHeader,
    contextValues: context.values,
    message: input,
  });
  copyHeaders(res.header, context.responseHeader);
  copyHeaders(res.trailer, context.responseTrailer);
  return res.message;
}

type UnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

function copyHeaders(from: Headers, to: Headers): void {
  if (from === to) return;
  for (const key of [...to.keys()]) to.delete(key);
  from.forEach((value, key) => to.set(key, value));
}
