import type http from "node:http";
import type http2 from "node:http2";
import { create, isMessage, type DescMessage, type DescMethodUnary, type DescService, type Message } from "@bufbuild/protobuf";
import type { ContextValues, Transport } from "@connectrpc/connect";
import type { Compression, MethodSerializationLookup } from "@connectrpc/connect/protocol";

export type Req = http.IncomingMessage | http2.Http2ServerRequest;
export type Res = http.ServerResponse | http2.Http2ServerResponse;

export interface DirectUnaryOptions {
  services: readonly DescService[];
  /** The in-process transport: the registered handlers behind the same interceptors as every protocol. */
  transport: Transport;
  readMaxBytes: number;
  /** What connect-node's adapter is given, so both answer alike. */
  acceptCompression: Compression[];
  compressMinBytes: number;
  contextValues(req: Req): ContextValues;
}

/** One call as the protocol answerers see it. */
export interface UnaryCall {
  req: Req;
  res: Res;
  method: DescMethodUnary;
  binary: boolean;
  serialization: MethodSerializationLookup<DescMethodUnary["input"], DescMethodUnary["output"]>;
  header: Headers;
  /** Aborted when the client goes away before the answer is written. */
  signal: AbortSignal;
  opts: DirectUnaryOptions;
}

/** Web headers as node's writeHead / addTrailers take them. */
export function nodeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => (out[key] = value));
  return out;
}

/** A handler's result (a message or its init shape, see in-process-transport.ts) as the message to serialize. */
export function toMessage(schema: DescMessage, result: unknown): Message {
  return isMessage(result, schema) ? result : create(schema, result as never);
}
