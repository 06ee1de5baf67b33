/**
 * The bare node:http baseline of the TOTP bench (bench/totp.ts): the same work as Sigil's authMfaTotpDevice,
 * behind a hand-written router, answered with JSON.stringify. What Sigil adds on top (the REST gateway, the
 * interceptor chain with its tenancy read and rate-limit bookkeeping, validation, protobuf shapes, the
 * request log) is the framework cost the bench reports as a ratio.
 *
 *   POST /api/v0/sdk/{env}/users/mfa/auth/totp  {id, code}
 *     the session JWT checked by the domain (authenticateEndUser: memo'd ES256 verification + revocation
 *     marker), the factor's lock (factorLock.check), the device row read (findVerifiedTotpDevice), the secret
 *     unsealed, the code checked with otpauth (totpStepOf, ±1 step), the step taken by the conditional UPDATE
 *     (acceptTotpCounter), the lock cleared, then the domain's passSecondFactor (session renewal, audit row,
 *     event, new tokens) -> VerifyResponse
 * Configured like Sigil: DATABASE_URL, REDIS_URL, SIGIL_SEALING_KEYS; BENCH_ENV is the environment served.
 */
import http from "node:http";
import * as mfa from "../../src/db/repositories/mfa.js";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";
import { factorLock } from "../../src/domain/mfa/lockout.js";
import { passSecondFactor } from "../../src/domain/mfa/pass.js";
import { totpStepOf } from "../../src/domain/mfa/totp.js";
import { totpSecretAad } from "../../src/domain/mfa/totp-devices.js";
import { authenticateEndUser } from "../../src/domain/sessions/service.js";
import { benchDeps } from "../support/deps.js";

const environmentId = process.env.BENCH_ENV!;
const deps = await benchDeps(process.env);
const tenant = await findEnvironmentTenant(deps.db, environmentId, null);
if (!tenant) throw new Error(`no environment ${environmentId}`);
const env = { environmentId, environmentName: tenant.name, projectId: tenant.projectId, organizationId: tenant.organizationId };
const PATH = `/api/v0/sdk/${environmentId}/users/mfa/auth/totp`;

class Refused extends Error {}

function send(res: http.ServerResponse, status: number, body?: unknown) {
  const text = JSON.stringify(body ?? {});
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: http.IncomingMessage): Promise<{ id?: string; code: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function authTotp(req: http.IncomingMessage) {
  const principal = await authenticateEndUser(deps, environmentId, req.headers.authorization ?? null);
  const input = await readJson(req);
  const lock = factorLock(deps.store, environmentId, principal.userId, "totp");
  await lock.check();
  const device = await mfa.findVerifiedTotpDevice(deps.db, environmentId, principal.userId, input.id);
  if (!device) throw new Refused("no device");
  const step = totpStepOf(deps.sealer.open(device.secretSealed, totpSecretAad(device.id)), input.code);
  if (step === null || !(await mfa.acceptTotpCounter(deps.db, environmentId, principal.userId, device.id, step))) {
    await lock.failed();
    throw new Refused("wrong or used code");
  }
  await lock.passed();
  const meta = { ipAddress: req.socket.remoteAddress ?? null, userAgent: req.headers["user-agent"] ?? null, requestId: "" };
  const { tokens, user } = await passSecondFactor(deps, env, principal, { type: "totp", deviceId: device.id }, meta);
  return { jwt: tokens.jwt, minifiedJwt: tokens.minifiedJwt, expiresAt: tokens.expiresAt, user };
}

http
  .createServer((req, res) => {
    if (req.url === "/healthz") return send(res, 200, { status: "ok" });
    if (req.method !== "POST" || req.url !== PATH) return send(res, 404, { error: "not found" });
    authTotp(req).then(
      (body) => send(res, 200, body),
      (err: unknown) => send(res, err instanceof Refused ? 422 : 500, { error: String(err) }),
    );
  })
  .listen(Number(process.env.PORT), "127.0.0.1");

// A normal exit on SIGTERM, so `node --cpu-prof` writes its profile.
process.on("SIGTERM", () => process.exit(0));
