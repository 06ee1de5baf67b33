import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** Status and spec error code for the parse errors Node reports on an HTTP/1.1 connection. */
function classify(code: string | undefined): { status: number; code: string; error: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      // The request line counts too: a URL over the limit lands here as well.
      return { status: 431, code: "request_header_fields_too_large", error: "the request's headers or URL are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, code: "payload_too_large", error: "chunk extensions too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", error: "the request was not received in time" };
    default:
      return { status: 400, code: "malformed_request", error: "malformed HTTP request" };
  }
}

/**
 * The http server's 'clientError' listener. Node's own answer is a bare status line; this one carries the
 * spec's JSON error body (`{error, code}`), never any of the request, and closes the connection as Node
 * does. When a response is already under way or the socket is gone, there is nothing to answer.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const c = classify(err.code);
  const body = JSON.stringify({ error: c.error, code: c.code });
  socket.end(
    `HTTP/1.1 ${c.status} ${STATUS_CODES[c.status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      "connection: close\r\n\r\n" +
      body,
  );
}
