import type http from "node:http";
import type http2 from "node:http2";

/** A request and its response on the one port, over HTTP/1.1 or h2c. */
export type Req = http.IncomingMessage | http2.Http2ServerRequest;
export type Res = http.ServerResponse | http2.Http2ServerResponse;

/** 200 with `body` and its length; a HEAD request gets the same headers and no body. */
export function sendBody(req: Req, res: Res, type: string, body: string | Buffer, headers: Record<string, string>): void {
  res.writeHead(200, { "content-type": type, "content-length": String(Buffer.byteLength(body)), ...headers });
  if (req.method === "HEAD") res.end();
  else res.end(body);
}
