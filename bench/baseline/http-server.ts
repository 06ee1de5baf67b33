/**
 * The bare node:http baseline: the same work as Sigil's GET user / GetUser / list users (bench/baseline/work.ts)
 * behind a hand-written router, answered with JSON.stringify. What Sigil adds on top is the framework cost
 * the bench reports as a ratio.
 */
import http from "node:http";
import { BareError, getUser, listUsers } from "./work.js";

const USER = /^\/api\/v0\/environments\/([^/]+)\/users\/([^/?]+)$/;
const LIST = /^\/api\/v0\/environments\/([^/]+)\/users$/;

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const [path, search] = (req.url ?? "/").split("?");
  const auth = req.headers.authorization;
  if (path === "/healthz") return send(res, 200, { status: "ok" });
  let m = USER.exec(path!);
  if (m && req.method === "GET") {
    const { aggregate, fields } = await getUser(auth, m[1]!, m[2]!);
    return send(res, 200, { user: aggregate, missingFields: fields.filter((f) => f.required) });
  }
  // The Connect-shaped twin: the ids come in a JSON body.
  if (path === "/get-user" && req.method === "POST") {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { environmentId: string; userId: string };
    const { aggregate, fields } = await getUser(auth, body.environmentId, body.userId);
    return send(res, 200, { user: aggregate, missingFields: fields.filter((f) => f.required) });
  }
  m = LIST.exec(path!);
  if (m && req.method === "GET") {
    const q = new URLSearchParams(search ?? "");
    const page = await listUsers(auth, m[1]!, Number(q.get("limit") ?? 100), Number(q.get("offset") ?? 0));
    return send(res, 200, { users: page.users, count: page.count });
  }
  send(res, 404, { error: "not found" });
}

http
  .createServer((req, res) => {
    route(req, res).catch((err: unknown) => send(res, err instanceof BareError ? err.status : 500, { error: String(err) }));
  })
  .listen(Number(process.env.PORT), "127.0.0.1");

// A normal exit on SIGTERM, so `node --cpu-prof` writes its profile (bench/profile.ts, BENCH_PROFILE_TARGET=baseline).
process.on("SIGTERM", () => process.exit(0));
