import type * as http from "node:http";
import type * as http2 from "node:http2";
import { GatewayError } from "./errors.js";

export const tooLarge = (maxBodyBytes: number) =>
  new GatewayError(413, "payload_too_large", `request body exceeds ${maxBodyBytes} bytes`);

/**
 * Reads the request body, refusing more than `maxBodyBytes`. The declared Content-Length is checked before
 * reading anything; the bytes actually received are counted too, because chunked (HTTP/1.1) and HTTP/2
 * bodies need not declare a length, or may lie about it. On overflow we stop reading at once instead of
 * buffering the rest.
 */
export function readBody(req: http.IncomingMessage | http2.Http2ServerRequest, maxBodyBytes: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBodyBytes) {
    return Promise.reject(tooLarge(maxBodyBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
      req.off("close", onAborted);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      received += buf.length;
      if (received > maxBodyBytes) {
        cleanup();
        // Stop the flow; the response (sent with Connection: close on HTTP/1) ends the exchange.
        req.pause();
        reject(tooLarge(maxBodyBytes));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, received));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAborted = () => {
      cleanup();
      // Nobody will read this answer; 499 (nginx's "client closed request") keeps it out of the 500 logs.
      reject(new GatewayError(499, "client_closed_request", "the client closed the request"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
    // 'close' before 'end' means the client went away; without it the read would wait forever.
    req.on("close", onAborted);
  });
}
