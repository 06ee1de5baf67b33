import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { answerClientError } from "./client-error.js";
import type { Req, Res } from "./replies.js";

type Handler = (req: Req, res: Res) => void;

const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

function startsLikeH2(chunk: Buffer): boolean {
  const n = Math.min(chunk.length, H2_PREFACE.length);
  return chunk.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
}

/**
 * One port for HTTP/1.1 and cleartext HTTP/2 (h2c with prior knowledge, as gRPC clients speak it).
 * Node's plaintext http2 server cannot fall back to HTTP/1.1, so each connection's first bytes are
 * sniffed: the HTTP/2 connection preface goes to the http2 server, anything else to the http1 server.
 */
export function createDualServer(handler: Handler) {
  // Requests in flight per HTTP/1.1 socket, so that close() can end idle keep-alive sockets at once and
  // busy ones right after their response.
  const h1Busy = new Map<net.Socket, number>();
  let closing = false;
  const h1Handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    h1Busy.set(socket, (h1Busy.get(socket) ?? 0) + 1);
    if (closing) res.shouldKeepAlive = false;
    res.once("close", () => {
      const left = (h1Busy.get(socket) ?? 1) - 1;
      h1Busy.set(socket, left);
      if (closing && left === 0) socket.end();
    });
    handler(req, res);
  };
  const h1 = http.createServer(h1Handler);
  const h2 = http2.createServer({}, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  h1.keepAliveTimeout = 65_000;
  // Oversized headers and malformed requests get the JSON error body too, not Node's bare status line.
  h1.on("clientError", answerClientError);
  const sessions = new Set<http2.ServerHttp2Session>();
  const sockets = new Set<net.Socket>();
  const h2Sockets = new WeakSet<net.Socket>();
  const isH2Socket = (socket: net.Socket) => h2Sockets.has(socket);
  h2.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      h1Busy.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    socket.once("data", (chunk) => {
      socket.pause();
      if (startsLikeH2(chunk)) {
        h2Sockets.add(socket);
        // The sniffed bytes go back into the socket: the http2 session feeds what the socket already
        // buffered to its parser, then reads the native handle itself (no JS stream per byte of gRPC).
        socket.unshift(chunk);
        h2.emit("connection", socket);
      } else {
        socket.unshift(chunk);
        h1Busy.set(socket, 0);
        h1.emit("connection", socket);
        socket.resume();
      }
    });
  });
  return {
    server,
    listen(port: number, host: string): Promise<number> {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
      });
    },
    /**
     * Graceful: stops accepting connections, lets requests in flight finish (HTTP/2 sessions get a GOAWAY
     * and close after their open streams; HTTP/1.1 sockets close when idle), and after drainMs cuts whatever
     * is left, so that a hung request cannot hold up the shutdown.
     */
    async close(drainMs = 5_000): Promise<void> {
      closing = true;
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sessions) s.close();
      for (const socket of sockets) {
        const busy = h1Busy.get(socket);
        if (busy === 0) socket.end();
        else if (busy === undefined && !isH2Socket(socket)) socket.destroy(); // connected, nothing sent yet
      }
      const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), drainMs);
      timer.unref();
      await closed;
      clearTimeout(timer);
    },
  };
}
