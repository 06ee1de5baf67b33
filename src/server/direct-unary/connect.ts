import { Code, ConnectError } from "@connectrpc/connect";
import type { DescMessage } from "@bufbuild/protobuf";
import { compressionNegotiate, readAllBytes } from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  errorToJsonBytes,
  headerTimeout,
  headerUnaryAcceptEncoding,
  headerUnaryContentLength,
  headerUnaryEncoding,
  parseTimeout,
  trailerMux,
} from "@connectrpc/connect/protocol-connect";
import { protoJson } from "../../gateway/present.js";
import { nodeHeaders, toMessage, type UnaryCall } from "./call.js";

/**
 * The error's metadata (Sigil's error code and payload, Retry-After, the accepted encodings of a refused
 * one) as response headers, set over the answer's own as connect's unary handler does.
 */
function mergeErrorMetadata(into: Headers, metadata: Headers): void {
  metadata.forEach((value, key) => into.set(key, value));
}

/**
 * A unary call over the Connect protocol, as connect's own unary handler answers it: the status from the
 * error code, the error as JSON, trailers as `trailer-` headers, the answer compressed when asked and large
 * enough.
 */
export async function answerConnectUnary({ req, res, method, binary, serialization, header, signal, opts }: UnaryCall): Promise<void> {
  const timeout = parseTimeout(header.get(headerTimeout), Number.MAX_SAFE_INTEGER);
  const compression = compressionNegotiate(opts.acceptCompression, header.get(headerUnaryEncoding), header.get(headerUnaryAcceptEncoding), headerUnaryAcceptEncoding);
  let status = 200;
  let responseHeader: Headers;
  let body: Uint8Array | string;
  try {
    if (compression.error) throw compression.error;
    if (timeout.error) throw timeout.error;
    let bytes = await readAllBytes(req as AsyncIterable<Uint8Array>, opts.readMaxBytes, header.get(headerUnaryContentLength));
    if (compression.request) bytes = await compression.request.decompress(bytes, opts.readMaxBytes);
    const input = serialization.getI(binary).parse(bytes);
    const r = await opts.transport.unary(method, signal, timeout.timeoutMs, header, input, opts.contextValues(req));
    body = binary ? serialization.getO(true).serialize(toMessage(method.output, r.message)) : jsonText(method.output, r.message);
    responseHeader = hasAny(r.trailer) ? trailerMux(r.header, r.trailer) : r.header;
    responseHeader.set("content-type", binary ? contentTypeUnaryProto : contentTypeUnaryJson);
  } catch (e) {
    // As connect's own handler: only a ConnectError speaks; anything else is an internal error.
    const error = e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
    status = codeToHttpStatus(error.code);
    responseHeader = new Headers({ "content-type": contentTypeUnaryJson });
    mergeErrorMetadata(responseHeader, error.metadata);
    body = errorToJsonBytes(error, undefined);
  }
  let length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  if (compression.response && length >= opts.compressMinBytes) {
    body = await compression.response.compress(typeof body === "string" ? Buffer.from(body) : body);
    length = body.byteLength;
    responseHeader.set(headerUnaryEncoding, compression.response.name);
  }
  responseHeader.set(headerUnaryContentLength, String(length));
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, nodeHeaders(responseHeader));
  res.end(body);
}

/**
 * A JSON answer: the handler's result written as proto3 JSON straight from the result (as connect's JSON
 * serialization would write its message, errors as internal), and kept as text, which node sends together
 * with the status line and headers.
 */
function jsonText(schema: DescMessage, result: unknown): string {
  try {
    return protoJson(schema, result);
  } catch (e) {
    throw ConnectError.from(e, Code.Internal);
  }
}

function hasAny(headers: Headers): boolean {
  for (const _ of headers.keys()) return true;
  return false;
}
