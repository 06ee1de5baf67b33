import { create, isMessage, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ConnectError,
  createContextValues,
  createHandlerContext,
  createMethodImplSpec,
  createServiceImplSpec,
  type ConnectRouter,
  type ContextValues,
  type Interceptor,
  type MethodImplSpec,
  type Transport,
  type UnaryResponse,
} from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";

/**
 * The REST gateway's way into the RPC handlers: a Transport that calls the registered implementation of a
 * unary RPC directly, through the same interceptors and with the same handler context as Connect, gRPC and
 * gRPC-Web (Connect's own invokeUnaryImplementation), but without encoding the request to bytes and parsing
 * it back, nor the response. createRouterTransport did both, which cost a REST call about a fifth of its CPU
 * (docs/benchmarks.md, 2026-11-23). Streaming calls, which REST does not route, go to `fallback`.
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
      const context = createHandlerContext({
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
        const output = await invokeUnaryImplementation(spec, context, message, interceptors);
        return { stream: false, service: method.parent, method, header: context.responseHeader, trailer: context.responseTrailer, message: output as never };
      } catch (err) {
        // Over the wire a client sees the handler's response headers and trailers with the error; so here.
        const ce = ConnectError.from(err);
        for (const h of [context.responseHeader, context.responseTrailer]) h.forEach((v, k) => ce.metadata.has(k) || ce.metadata.set(k, v));
        throw ce;
      }
      // The context is not aborted at the end (Connect's server handler does): the abort reason is a
      // DOMException built per call, a visible cost in the profile, and the signal dies with the context.
    },
    stream: (...args) => fallback.stream(...args),
  };
}
