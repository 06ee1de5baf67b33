/**
 * The bare node:http baseline of the session and sign-in bench (bench/sessions.ts): the same work as Sigil's
 * SDK session check, refresh, nonce and wallet sign-in, behind a hand-written router, answered with
 * JSON.stringify. What Sigil adds on top (the REST gateway, the interceptor chain with its tenancy read,
 * protobuf shapes, the request log) is the framework cost the bench reports as a ratio.
 *
 * The work, per route (BENCH_ENV is the one environment served; its tenant row is read once at start):
 *   GET  /api/v0/sdk/{env}/session        jose jwtVerify of the Bearer JWT with the environment's public key
 *                                         (imported once), then the session's state in Redis (the same key
 *                                         scheme and Postgres fallback: src/domain/sessions/revocation.ts) -> 204
 *   GET  /memo/api/v0/sdk/{env}/session   the same with a memo of verified tokens like Sigil's SessionVerifier
 *                                         (by exact token text, until expiry; the revocation GET stays)
 *   POST /api/v0/sdk/{env}/refresh        memo-verified JWT (no revocation GET: as Sigil's RefreshAuth, the
 *                                         rotation only matches a live session), then the domain's
 *                                         refreshSession as Sigil's handler calls it (the rotation and the user
 *                                         aggregate in one statement, ES256 signing with the same key) -> VerifyResponse
 *   GET  /api/v0/sdk/{env}/nonce          the domain's issueNonce (128 bits in Redis, 10 minutes) -> {nonce}
 *   POST /api/v0/sdk/{env}/verify         the domain's proveWallet (viem parse + checks + signature recovery,
 *                                         the nonce taken from Redis) and signInWith (the sign-in pipeline's
 *                                         transaction, session and tokens) -> VerifyResponse
 * Configured like Sigil: DATABASE_URL, REDIS_URL, SIGIL_SEALING_KEYS (to open the same signing key).
 */
import http from "node:http";
import { decodeProtectedHeader, importSPKI, jwtVerify, type CryptoKey } from "jose";
import { findPublishedKeys } from "../../src/db/repositories/environment-keys.js";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";
import { isSessionRevoked } from "../../src/domain/sessions/revocation.js";
import { refreshSession } from "../../src/domain/sessions/refresh.js";
import { issuerOf, type SessionClaims } from "../../src/domain/sessions/tokens.js";
import { signInWith } from "../../src/domain/sign-in/pipeline.js";
import { issueNonce } from "../../src/domain/wallet-sign-in/nonces.js";
import { proveWallet, type WalletProofInput } from "../../src/domain/wallet-sign-in/proof.js";
import { benchDeps } from "../support/deps.js";

const environmentId = process.env.BENCH_ENV!;
const deps = await benchDeps(process.env);
const { db, store } = deps;

const tenant = await findEnvironmentTenant(db, environmentId, null);
if (!tenant) throw new Error(`no environment ${environmentId}`);
const env = { environmentId, environmentName: tenant.name, projectId: tenant.projectId, organizationId: tenant.organizationId };
// The environment's published keys, imported once (Sigil's Keyring does the same, re-reading every 30 s).
const publicKeys = new Map<string, { alg: string; key: CryptoKey }>();
for (const k of await findPublishedKeys(db, environmentId)) publicKeys.set(k.kid, { alg: k.alg, key: await importSPKI(k.publicKeyPem, k.alg) });

class Unauthorized extends Error {}

/** The checks of Sigil's SessionVerifier, by hand: the header's kid, the key's algorithm, issuer, expiry, environment; the refresh generation read as Sigil reads it. */
async function verify(token: string): Promise<SessionClaims> {
  const key = publicKeys.get(decodeProtectedHeader(token).kid ?? "");
  if (!key) throw new Unauthorized("unknown key");
  const { payload } = await jwtVerify(token, key.key, { algorithms: [key.alg], issuer: issuerOf(environmentId), requiredClaims: ["sub", "exp", "iat"] });
  if (payload.environment_id !== environmentId || typeof payload.sid !== "string") throw new Unauthorized("another environment's token");
  const refreshId = typeof payload.refresh_id === "string" ? { refreshId: payload.refresh_id } : {};
  return { environmentId, userId: payload.sub!, sessionId: payload.sid, scope: String(payload.scope ?? "user:basic"), issuedAt: payload.iat!, expiresAt: payload.exp!, ...refreshId };
}

const MEMO_SIZE = 20_000;
const memo = new Map<string, SessionClaims>();

/** Like SessionVerifier.verify: a token verified before costs a map lookup until it expires. */
async function verifyRemembered(token: string): Promise<SessionClaims> {
  const known = memo.get(token);
  if (known && known.expiresAt > Date.now() / 1000) return known;
  const claims = await verify(token);
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
  memo.set(token, claims);
  return claims;
}

/**
 * The caller's live session: a valid token whose session has no revocation marker (`liveness: "handler"`:
 * the handler's statement checks it, as for Sigil's RPCs that declare session_checked_by_handler).
 */
async function authenticate(req: http.IncomingMessage, remembered: boolean, liveness: "store" | "handler" = "store"): Promise<SessionClaims> {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  if (!token) throw new Unauthorized("no token");
  const claims = await (remembered ? verifyRemembered(token) : verify(token)).catch((err: unknown) => {
    throw err instanceof Unauthorized ? err : new Unauthorized(String(err));
  });
  if (liveness === "store" && (await isSessionRevoked(deps, claims))) throw new Unauthorized("revoked");
  return claims;
}

function send(res: http.ServerResponse, status: number, body?: unknown) {
  if (body === undefined) return res.writeHead(status).end();
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const meta = (req: http.IncomingMessage) => ({ ipAddress: req.socket.remoteAddress ?? null, userAgent: req.headers["user-agent"] ?? null, requestId: "" });
const signIn = (tokens: { jwt: string; minifiedJwt: string; expiresAt: number }, user: unknown, newUser = false) => ({
  jwt: tokens.jwt,
  minifiedJwt: tokens.minifiedJwt,
  expiresAt: tokens.expiresAt,
  user,
  newUser,
});

const SDK = `/api/v0/sdk/${environmentId}`;

async function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? "/";
  if (path === "/healthz") return send(res, 200, { status: "ok" });
  if (req.method === "GET" && (path === `${SDK}/session` || path === `/memo${SDK}/session`)) {
    await authenticate(req, path.startsWith("/memo"));
    return send(res, 204);
  }
  if (req.method === "POST" && path === `${SDK}/refresh`) {
    const claims = await authenticate(req, true, "handler");
    const { tokens, user } = await refreshSession(deps, env, { kind: "end_user", ...claims }, "");
    return send(res, 200, signIn(tokens, user));
  }
  if (req.method === "GET" && path === `${SDK}/nonce`) return send(res, 200, { nonce: await issueNonce(store, environmentId) });
  if (req.method === "POST" && path === `${SDK}/verify`) {
    const credential = await proveWallet(deps, env, (await readJson(req)) as WalletProofInput);
    const r = await signInWith(deps, env, credential, meta(req));
    return send(res, 200, signIn(r.tokens, r.user, r.newUser));
  }
  send(res, 404, { error: "not found" });
}

http
  .createServer((req, res) => {
    route(req, res).catch((err: unknown) => send(res, err instanceof Unauthorized ? 401 : 422, { error: String(err) }));
  })
  .listen(Number(process.env.PORT), "127.0.0.1");

// A normal exit on SIGTERM, so `node --cpu-prof` writes its profile.
process.on("SIGTERM", () => process.exit(0));
