import { Code, ConnectError } from "@connectrpc/connect";
import {
  compressedFlag,
  compressionNegotiate,
  encodeEnvelope,
  pipe,
  transformDecompressEnvelope,
  transformParseEnvelope,
  transformSplitEnvelope,
} from "@connectrpc/connect/protocol";
import {
  contentTypeJson,
  contentTypeProto,
  grpcStatusOk,
  headerAcceptEncoding,
  headerEncoding,
  headerGrpcStatus,
  headerTimeout,
  parseTimeout,
  setTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";
import type { Http2ServerResponse } from "node:http2";
import type { Message } from "@bufbuild/protobuf";
import { nodeHeaders, toMessage, type UnaryCall } from "./call.js";

/**
 * A unary call over gRPC (HTTP/2), as connect's own gRPC handler answers it: HTTP 200 with the content type,
 * one enveloped message (compressed when negotiated and large enough), and the status in the trailers
 * (`grpc-status`, `grpc-message`, `grpc-status-details-bin` and the error's metadata). The request body is
 * read with the library's own envelope transforms.
 */
export async function answerGrpcUnary({ req, res, method, binary, serialization, header, signal, opts }: UnaryCall): Promise<void> {
  const timeout = parseTimeout(header.get(headerTimeout), Number.MAX_SAFE_INTEGER);
  const compression = compressionNegotiate(opts.acceptCompression, header.get(headerEncoding), header.get(headerAcceptEncoding), headerAcceptEncoding);
  const responseHeader = new Headers({ "content-type": binary ? contentTypeProto : contentTypeJson });
  if (compression.response) responseHeader.set(headerEncoding, compression.response.name);
  let trailer = new Headers({ [headerGrpcStatus]: grpcStatusOk });
  let body: Uint8Array | undefined;
  try {
    if (compression.error) throw compression.error;
    if (timeout.error) throw timeout.error;
    const input = await single(
      pipe(
        req as AsyncIterable<Uint8Array>,
        transformSplitEnvelope(opts.readMaxBytes),
        transformDecompressEnvelope(compression.request ?? null, opts.readMaxBytes),
        transformParseEnvelope(serialization.getI(binary)),
      ),
    );
    const r = await opts.transport.unary(method, signal, timeout.timeoutMs, header, input, opts.contextValues(req));
    let bytes = serialization.getO(binary).serialize(toMessage(method.output, r.message));
    let flags = 0;
    if (compression.response && bytes.byteLength >= opts.compressMinBytes) {
      bytes = await compression.response.compress(bytes);
      flags = compressedFlag;
    }
    body = encodeEnvelope(flags, bytes);
    r.header.forEach((value, key) => responseHeader.set(key, value));
    r.trailer.forEach((value, key) => trailer.set(key, value));
  } catch (e) {
    // As connect's own handler: only a ConnectError speaks; anything else is an internal error.
    trailer = setTrailerStatus(new Headers(), e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e));
  }
  // gRPC is only served here over HTTP/2 (index.ts), so the answer is an HTTP/2 one.
  const h2 = res as Http2ServerResponse;
  if (h2.destroyed || h2.writableEnded) return;
  h2.writeHead(200, nodeHeaders(responseHeader));
  if (body) h2.write(body);
  h2.addTrailers(nodeHeaders(trailer));
  h2.end();
}

/** The one request message of a unary call (the messages connect's handler gives when there are none or two). */
async function single(messages: AsyncIterable<Message>): Promise<Message> {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done === true) throw new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  const second = await it.next();
  if (second.done !== true) throw new ConnectError("protocol error: received extra input message for unary method", Code.Unimplemented);
  return first.value;
}
