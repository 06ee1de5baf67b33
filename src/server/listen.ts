import http from "node:http";
import http2 from "node:http2";
import net from "node:net";

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

const H2_PREFACE_START = Buffer.from("PRI * HTTP/2.0");

/**
 * One port for HTTP/1.1 and cleartext HTTP/2 (h2c with prior knowledge, as gRPC clients speak it).
 * Node's plaintext http2 server cannot fall back to HTTP/1.1, so each connection's first bytes are
 * peeked: the HTTP/2 connection preface goes to the http2 server, anything else to the http1 server.
 */
export function createDualServer(handler: Handler) {
  const h1 = http.createServer(handler as http.RequestListener);
  const h2 = http2.createServer({}, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  h1.keepAliveTimeout = 65_000;
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  const server = net.createServer((socket) => {
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      const isH2 = chunk.subarray(0, H2_PREFACE_START.length).equals(H2_PREFACE_START.subarray(0, Math.min(chunk.length, H2_PREFACE_START.length)));
      (isH2 ? h2 : h1).emit("connection", socket);
      socket.resume();
    });
    socket.on("error", () => socket.destroy());
  });
  return {
    server,
    listen(port: number, host: string): Promise<number> {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
      });
    },
    async close(): Promise<void> {
      for (const s of sessions) s.close();
      h1.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
