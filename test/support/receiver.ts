import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request the receiver got, as a webhook consumer would see it. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What the receiver answered. */
  status: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow endpoint). */
  delayMs?: number;
}

/** Decides the answer to a request; `n` counts the requests to that path so far (1-based). */
export type Script = (req: { path: string; headers: Record<string, string>; body: string; n: number }) => Reply | Promise<Reply>;

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request, answers as scripted per path
 * (200 by default), tracks concurrent requests per path, and can be stopped and started again on the same
 * port (an endpoint going down and coming back).
 */
export class Receiver {
  readonly requests: Received[] = [];
  private scripts = new Map<string, Script>();
  private counts = new Map<string, number>();
  private inFlight = new Map<string, number>();
  private maxInFlight = new Map<string, number>();
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  port = 0;

  static async start(port = 0): Promise<Receiver> {
    const r = new Receiver();
    await r.listen(port);
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path.startsWith("/") ? path : `/${path}`}`;
  }

  /** Answers requests to `path` with `script` from now on. */
  script(path: string, script: Script): void {
    this.scripts.set(path, script);
  }

  received(path?: string): Received[] {
    return path === undefined ? this.requests : this.requests.filter((r) => r.path === path);
  }

  /** The most requests to `path` that were in progress at the same time. */
  maxConcurrent(path: string): number {
    return this.maxInFlight.get(path) ?? 0;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async listen(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0]!;
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const n = (this.counts.get(path) ?? 0) + 1;
        this.counts.set(path, n);
        const now = (this.inFlight.get(path) ?? 0) + 1;
        this.inFlight.set(path, now);
        this.maxInFlight.set(path, Math.max(now, this.maxInFlight.get(path) ?? 0));
        const headers = flat(req.headers);
        const body = Buffer.concat(chunks).toString("utf8");
        let reply: Reply;
        try {
          reply = await (this.scripts.get(path) ?? (() => ({ status: 200, body: "ok" })))({ path, headers, body, n });
        } catch (err) {
          reply = { status: 500, body: String(err) };
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1);
        this.requests.push({ path, headers, body, at: Date.now(), status: reply.status });
        if (res.destroyed) return;
        res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
        res.end(reply.body ?? "");
      });
    });
    server.keepAliveTimeout = 1000;
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: requests now fail with connection refused. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function flat(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}
