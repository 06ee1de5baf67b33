import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

interface StoredFile {
  id: string;
  name: string;
  parents: string[];
  content: Buffer;
  createdTime: string;
}

/**
 * A cloud drive's REST API on 127.0.0.1, as much of it as an app-data backup uses: multipart upload, list
 * by name in the app-data folder, download by id. Each access token is a user of its own (an app-data folder
 * per token); an unknown token answers 401 as the real API does. Requests are recorded; `failWith` and
 * `delayMs` script a failing or slow drive.
 */
export class CloudDrivePeer {
  readonly requests: { method: string; url: string; authorization: string | undefined; contentType: string | undefined }[] = [];
  /** Answer every request with this status (and an error body) while set. */
  failWith: number | null = null;
  /** Wait this long before answering. */
  delayMs = 0;
  private tokens = new Set<string>();
  private folders = new Map<string, StoredFile[]>();
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  private clock = 0;

  static async start(): Promise<CloudDrivePeer> {
    const peer = new CloudDrivePeer();
    peer.server = createServer((req, res) => void peer.handle(req, res));
    peer.server.on("connection", (s) => {
      peer.sockets.add(s);
      s.on("close", () => peer.sockets.delete(s));
    });
    await new Promise<void>((resolve) => peer.server!.listen(0, "127.0.0.1", resolve));
    return peer;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** A new user of the drive: the access token its requests carry. */
  issueToken(): string {
    const token = `ya29.${randomUUID()}`;
    this.tokens.add(token);
    return token;
  }

  /** The app-data folder of a token's user. */
  files(token: string): StoredFile[] {
    return this.folders.get(token) ?? [];
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    this.requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, contentType: req.headers["content-type"] });
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const send = (status: number, value: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    };
    if (this.failWith !== null) return send(this.failWith, { error: { code: this.failWith, message: "scripted failure" } });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token || !this.tokens.has(token)) return send(401, { error: { code: 401, message: "Invalid Credentials" } });
    const url = new URL(req.url!, "http://peer");
    const folder = this.folders.get(token) ?? [];
    this.folders.set(token, folder);

    if (req.method === "POST" && url.pathname === "/upload/drive/v3/files") {
      if (url.searchParams.get("uploadType") !== "multipart") return send(400, { error: { message: "uploadType must be multipart" } });
      const parts = multipart(req.headers["content-type"], body);
      if (!parts || parts.length !== 2) return send(400, { error: { message: "expected a multipart/related body of metadata and content" } });
      const metadata = JSON.parse(parts[0]!.toString("utf8")) as { name?: string; parents?: string[] };
      if (typeof metadata.name !== "string" || JSON.stringify(metadata.parents) !== '["appDataFolder"]')
        return send(400, { error: { message: "metadata must name the file and put it in appDataFolder" } });
      const file: StoredFile = {
        id: randomUUID().replaceAll("-", ""),
        name: metadata.name,
        parents: metadata.parents!,
        content: parts[1]!,
        // Strictly increasing, so that "newest" is well defined even within one millisecond.
        createdTime: new Date(Date.UTC(2026, 0, 1) + ++this.clock * 1000).toISOString(),
      };
      folder.push(file);
      return send(200, { kind: "drive#file", id: file.id, name: file.name, mimeType: "application/octet-stream" });
    }
    if (req.method === "GET" && url.pathname === "/drive/v3/files") {
      if (url.searchParams.get("spaces") !== "appDataFolder") return send(400, { error: { message: "spaces must be appDataFolder" } });
      const name = /^name='((?:[^'\\]|\\.)*)'$/.exec(url.searchParams.get("q") ?? "")?.[1];
      if (name === undefined) return send(400, { error: { message: "q must be name='...'" } });
      const found = folder.filter((f) => f.name === name.replace(/\\(.)/g, "$1"));
      // The API's default order is not by creation: answer oldest first, the client must pick the newest.
      return send(200, { files: found.map((f) => ({ id: f.id, name: f.name, createdTime: f.createdTime })) });
    }
    const download = /^\/drive\/v3\/files\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && download && url.searchParams.get("alt") === "media") {
      const file = folder.find((f) => f.id === download[1]);
      if (!file) return send(404, { error: { code: 404, message: "File not found" } });
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(file.content);
      return;
    }
    send(404, { error: { message: "no such route" } });
  }
}

/** The parts of a multipart/related body (binary-safe), or null when it is not one. */
function multipart(contentType: string | undefined, body: Buffer): Buffer[] | null {
  const boundary = /^multipart\/related;\s*boundary=("?)([^";]+)\1$/i.exec(contentType ?? "")?.[2];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delimiter);
  if (at !== 0) return null;
  for (;;) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") return parts;
    const next = body.indexOf(delimiter, start);
    if (next < 0) return null;
    // Each part: CRLF, headers, CRLF CRLF, content, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const headersEnd = part.indexOf("\r\n\r\n");
    if (headersEnd < 0) return null;
    parts.push(Buffer.from(part.subarray(headersEnd + 4)));
    at = next;
  }
}
