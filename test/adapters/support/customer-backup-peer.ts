import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Webhook } from "standardwebhooks";

/**
 * A customer's backup service on 127.0.0.1, written as a customer would with the Standard Webhooks library:
 * every request's signature is verified (the POST's body, the GET's `payload` parameter) with the location's secret,
 * a webhook-id is accepted once (replays refused), and shares are stored by wallet, epoch and holder.
 * `override` scripts a misbehaving service.
 */
export class CustomerBackupPeer {
  readonly requests: { method: string; url: string; headers: Record<string, string>; body: string; status: number }[] = [];
  readonly stored = new Map<string, string>();
  /** Answers instead of the normal handling while set. */
  override: ((req: { method: string; url: URL }) => { status: number; body?: string; headers?: Record<string, string> }) | null = null;
  private seenIds = new Set<string>();
  private server: Server | undefined;
  private sockets = new Set<Socket>();

  private constructor(readonly secret: string) {}

  static async start(secret: string): Promise<CustomerBackupPeer> {
    const peer = new CustomerBackupPeer(secret);
    peer.server = createServer((req, res) => void peer.handle(req, res));
    peer.server.on("connection", (s) => {
      peer.sockets.add(s);
      s.on("close", () => peer.sockets.delete(s));
    });
    await new Promise<void>((resolve) => peer.server!.listen(0, "127.0.0.1", resolve));
    return peer;
  }

  url(path = "/backups"): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const url = new URL(req.url!, "http://peer");
    const answer = (status: number, value?: unknown, extra: Record<string, string> = {}) => {
      this.requests.push({ method: req.method!, url: req.url!, headers, body, status });
      res.writeHead(status, { "content-type": "application/json", ...extra }).end(value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value));
    };
    if (this.override) {
      const o = this.override({ method: req.method!, url });
      return answer(o.status, o.body ?? "", o.headers);
    }
    const signed = req.method === "GET" ? (url.searchParams.get("payload") ?? "") : body;
    let verified: { walletId: string; shareSetEpoch: number; holder: number; encryptedShare?: string };
    try {
      verified = new Webhook(this.secret).verify(signed, headers) as typeof verified;
    } catch {
      return answer(401, { error: "bad signature" });
    }
    if (this.seenIds.has(headers["webhook-id"]!)) return answer(409, { error: "replayed" });
    this.seenIds.add(headers["webhook-id"]!);
    if (req.method === "POST") {
      const b = verified;
      this.stored.set(`${b.walletId}/${b.shareSetEpoch}/${b.holder}`, b.encryptedShare!);
      return answer(204);
    }
    if (req.method === "GET") {
      const { walletId, shareSetEpoch, holder } = verified;
      const encryptedShare = this.stored.get(`${walletId}/${shareSetEpoch}/${holder}`);
      return encryptedShare === undefined ? answer(404, { error: "none" }) : answer(200, { walletId, shareSetEpoch, holder, encryptedShare });
    }
    answer(405);
  }
}
