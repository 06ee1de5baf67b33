/**
 * The bare baseline of bench/balances.ts: GET /api/v0/sdk/{env}/chains/{chain}/balances answered by the
 * domain's accountBalances itself (the same node calls, cache and store as Sigil's handler) behind a
 * hand-written router, with the published client's JSON (a bare TokenBalance array, rawBalance a number).
 * What Sigil adds beside it is its request path: the gateway, the interceptors, validation and protobuf.
 */
import http from "node:http";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";
import { accountBalances } from "../../src/domain/balances/account.js";
import { benchDeps } from "../support/deps.js";

const environmentId = process.env.BENCH_ENV!;
const deps = await benchDeps(process.env);
const tenant = await findEnvironmentTenant(deps.db, environmentId, null);
if (!tenant) throw new Error(`no environment ${environmentId}`);
const env = { environmentId, environmentName: tenant.name, projectId: tenant.projectId, organizationId: tenant.organizationId };
const ROUTE = new RegExp(`^/api/v0/sdk/${environmentId}/chains/([A-Z]+)/balances$`);

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function balances(url: URL, chainName: string) {
  const q = url.searchParams;
  const { balances } = await accountBalances(deps, env, {
    chainName,
    accountAddress: q.get("accountAddress") ?? "",
    networkId: q.has("networkId") ? Number(q.get("networkId")) : undefined,
    whitelistedContracts: q.getAll("whitelistedContracts"),
    forceRefresh: q.get("forceRefresh") === "true",
  });
  return balances.map((b) => ({ ...b, rawBalance: Number(b.rawBalance) }));
}

http
  .createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://bench");
    if (url.pathname === "/healthz") return send(res, 200, { status: "ok" });
    const route = req.method === "GET" ? ROUTE.exec(url.pathname) : null;
    if (!route) return send(res, 404, { error: "not found" });
    balances(url, route[1]!).then(
      (body) => send(res, 200, body),
      (err: unknown) => send(res, 500, { error: String(err) }),
    );
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
