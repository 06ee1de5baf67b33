import type { DescMethodUnary } from "@bufbuild/protobuf";
import { createMethodSerializationLookup } from "@connectrpc/connect/protocol";
import { parseContentType as parseConnectType } from "@connectrpc/connect/protocol-connect";
import { parseContentType as parseGrpcType } from "@connectrpc/connect/protocol-grpc";
import type { DirectUnaryOptions, Req, Res, UnaryCall } from "./call.js";
import { answerConnectUnary } from "./connect.js";
import { answerGrpcUnary } from "./grpc.js";

export type { DirectUnaryOptions } from "./call.js";

/**
 * Unary calls over Connect (POST with a JSON or binary body: connect-web, curl) and over gRPC (HTTP/2),
 * answered here rather than by connect-node's generic protocol handlers. Each call runs through the
 * in-process transport (the same interceptors, handler context and handlers as every protocol and REST), and
 * is decoded, encoded, compressed and turned into errors with connect's own protocol functions, so the wire
 * format is the library's. What it leaves out is the generic handlers' per-call machinery (the request
 * wrapped in a URL and async iterables, the response streamed through a pipeline of async generators, an
 * abort reason built for every call): about 40 % of a GetUser's CPU over Connect and half of it over gRPC
 * (docs/benchmarks.md, 2026-11-23 afternoon). Everything else (GET, streams, gRPC-Web, gRPC over HTTP/1.1,
 * content types it does not know) returns false and goes to connect-node. test/e2e/direct-unary.test.ts
 * compares both answers, request by request, for each protocol.
 */
export function createDirectUnaryHandler(opts: DirectUnaryOptions): (req: Req, res: Res) => boolean {
  const methods = new Map<string, DescMethodUnary>();
  for (const service of opts.services) {
    for (const m of service.methods) if (m.methodKind === "unary") methods.set(`/${service.typeName}/${m.name}`, m as DescMethodUnary);
  }
  const serializations = new Map<DescMethodUnary, UnaryCall["serialization"]>();
  const serializationOf = (method: DescMethodUnary) => {
    let s = serializations.get(method);
    if (!s) serializations.set(method, (s = createMethodSerializationLookup(method, undefined, undefined, { readMaxBytes: opts.readMaxBytes, writeMaxBytes: Number.MAX_SAFE_INTEGER })));
    return s;
  };

  return (req, res) => {
    if (req.method !== "POST") return false;
    const method = methods.get(req.url ?? "");
    if (!method) return false;
    const contentType = headerValue(req.headers["content-type"]);
    const connect = parseConnectType(contentType);
    const grpc = connect || req.httpVersionMajor !== 2 ? undefined : parseGrpcType(contentType);
    if (!(connect && !connect.stream) && !grpc) return false;
    const abort = new AbortController();
    res.once("close", () => {
      if (!res.writableEnded) abort.abort();
    });
    const call: UnaryCall = { req, res, method, binary: (connect ?? grpc)!.binary, serialization: serializationOf(method), header: requestHeaders(req), signal: abort.signal, opts };
    void (connect ? answerConnectUnary(call) : answerGrpcUnary(call)).catch(() => res.destroy());
    return true;
  };
}

function headerValue(v: string | string[] | undefined): string | null {
  return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
}

/** The request's headers as connect-node hands them to handlers: every one but HTTP/2's pseudo-headers. */
function requestHeaders(req: Req): Headers {
  const header = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (key.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) header.append(key, v);
    else header.set(key, value);
  }
  return header;
}

