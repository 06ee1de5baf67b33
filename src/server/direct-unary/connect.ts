import { Code, ConnectError } from "@connectrpc/connect";
import { compressionNegotiate, mergeNonProtocolHeaders, readAllBytes } from "@connectrpc/connect/protocol";
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
import { nodeHeaders, toMessage, type UnaryCall } from "./call.js";

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
  let body: Uint8Array;
  try {
    if (compression.error) throw compression.error;
    if (timeout.error) throw timeout.error;
    let bytes = await readAllBytes(req as AsyncIterable<Uint8Array>, opts.readMaxBytes, header.get(headerUnaryContentLength));
    if (compression.request) bytes = await compression.request.decompress(bytes, opts.readMaxBytes);
    const input = serialization.getI(binary).parse(bytes);
    const r = await opts.transport.unary(method, signal, timeout.timeoutMs, header, input, opts.contextValues(req));
    body = serialization.getO(binary).serialize(toMessage(method.output, r.message));
    responseHeader = hasAny(r.trailer) ? trailerMux(r.header, r.trailer) : r.header;
    responseHeader.set("content-type", binary ? contentTypeUnaryProto : contentTypeUnaryJson);
  } catch (e) {
    // As connect's own handler: only a ConnectError speaks; anything else is an internal error.
    const error = e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
    status = codeToHttpStatus(error.code);
    responseHeader = new Headers({ "content-type": contentTypeUnaryJson });
    if (!error.isWireError) mergeNonProtocolHeaders(responseHeader, error.metadata);
    body = errorToJsonBytes(error, undefined);
  }
  if (compression.response && body.byteLength >= opts.compressMinBytes) {
    body = await compression.response.compress(body);
    responseHeader.set(headerUnaryEncoding, compression.response.name);
  }
  responseHeader.set(headerUnaryContentLength, String(body.byteLength));
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, nodeHeaders(responseHeader));
  res.end(body);
}

function hasAny(headers: Headers): boolean {
  for (const _ of headers.keys()) return true;
  return false;
}
