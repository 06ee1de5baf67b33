import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { decodeJwt } from "jose";
import { createClient as createRedisClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase, type Database } from "../../../src/db/db.js";
import { bootstrapTenant, type BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkChatSignInService } from "../../../src/gen/sigil/chat_sign_in/v0/chat_sign_in_service_pb.js";
import { SdkExternalAuthService } from "../../../src/gen/sigil/external_jwt/v0/sdk_external_auth_service_pb.js";
import { SdkSessionsService } from "../../../src/gen/sigil/sessions/v0/sessions_service_pb.js";
import { findFreePort } from "../../../src/infra/ports.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { neutralWords } from "../../support/neutral-words.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { signInAs } from "../../support/sessions.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "../../infra/fixtures/runtime-process.js";
import { startTestRedis } from "../../setup/redis-server.js";
import { testEnv } from "../../setup/env.js";
import { cloneTemplateDatabase } from "../../setup/test-database.js";
import { signWidget, widgetUser } from "../support/chat-widget.js";
import { idpKey, TestIdp } from "../support/external-idp.js";

/**
 * Revocations and single-use marks outlive the store that caches them: a restart of `npm start` (its
 * in-process store starts empty) and a Redis that forgets (no persistence, eviction: FLUSHALL here) leave a
 * revoked session, a deleted user's token, a spent external JWT and a spent chat login refused, through the
 * published client (REST) and over gRPC. Refresh rotates: a token refreshes once, two refreshes with one
 * token have one winner, a later reuse revokes the session, and a session has an absolute end.
 */

const AUD = "tenant-app";
const BOT = { name: "sigil_attack_bot", token: `123456:${randomBytes(16).toString("hex")}` };
let idp: TestIdp;

beforeAll(async () => {
  idp = await TestIdp.start([await idpKey("attack-key")]);
});
afterAll(() => idp?.stop());

const sdk = (baseUrl: string, jwt?: string) => sdkFor(baseUrl, jwt).withMiddleware(neutralWords);
const grpc = (baseUrl: string) => {
  const transport = createGrpcTransport({ baseUrl });
  return {
    sessions: createClient(SdkSessionsService, transport),
    external: createClient(SdkExternalAuthService, transport),
    chat: createClient(SdkChatSignInService, transport),
  };
};
const bearer = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });
const grpcCode = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => Code[ConnectError.from(e).code],
  );

/** External JWT sign-in and chat sign-in on, for an environment of the server at baseUrl. */
async function enableSignIns(baseUrl: string, t: BootstrapResult) {
  const settings = await call(baseUrl, "PUT", `/environments/${t.environmentId}`, {
    token: t.token,
    body: { security: { externalAuth: { enabled: true, iss: idp.issuer, aud: AUD, jwksUrl: idp.jwksUrl } } },
  });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${settings.text}`);
  const chat = await call(baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, {
    token: t.token,
    body: { provider: "chat", clientId: BOT.name, clientSecret: BOT.token },
  });
  if (chat.status >= 300) throw new Error(`chat provider: ${chat.status} ${chat.text}`);
}

/** What the attacker kept from before the store forgot: tokens that must stay dead, credentials already spent. */
interface Leftovers {
  live: string;
  revoked: string;
  deleted: string;
  hardDeleted: string;
  spentExternalJwt: string;
  spentChatLogin: string;
}

const externalSignIn = (baseUrl: string, environmentId: string, jwt: string) => sdk(baseUrl).externalAuthSignin({ environmentId, externalAuthSigninRequest: { jwt } });
const chatSignIn = (baseUrl: string, environmentId: string, token: string) =>
  sdk(baseUrl).telegramSignIn({ environmentId, oauthResultRequest: { telegramAuthToken: token } });
const freshUser = async (baseUrl: string, environmentId: string) =>
  (await externalSignIn(baseUrl, environmentId, await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` }))).jwt!;

/** Through the server at baseUrl: revokes, deletes and spends, and checks each is refused there and then. */
async function closeDoors(baseUrl: string, t: BootstrapResult): Promise<Leftovers> {
  const env = t.environmentId;
  const live = await freshUser(baseUrl, env);
  const revoked = await freshUser(baseUrl, env);
  await sdk(baseUrl, revoked).revokeSession({ environmentId: env });
  const deleted = await freshUser(baseUrl, env);
  const res = await call(baseUrl, "DELETE", `/environments/${env}/users/${decodeJwt(deleted).sub}`, { token: t.token });
  expect(res.status, res.text).toBeLessThan(300);
  const hardDeleted = await freshUser(baseUrl, env);
  await sdk(baseUrl, hardDeleted).hardDeleteUser({ environmentId: env });
  const spentExternalJwt = await idp.token({ aud: AUD, sub: `ext-${randomUUID()}` });
  await externalSignIn(baseUrl, env, spentExternalJwt);
  const spentChatLogin = new URLSearchParams(signWidget(BOT.token, widgetUser())).toString();
  await chatSignIn(baseUrl, env, spentChatLogin);
  const left = { live, revoked, deleted, hardDeleted, spentExternalJwt, spentChatLogin };
  await expectDoorsClosed(baseUrl, env, left);
  return left;
}

async function expectDoorsClosed(baseUrl: string, environmentId: string, left: Leftovers) {
  // REST, through the published client.
  await sdk(baseUrl, left.live).sessionCheck({ environmentId });
  for (const jwt of [left.revoked, left.deleted, left.hardDeleted]) {
    const r = await refused(sdk(baseUrl, jwt).sessionCheck({ environmentId }));
    expect([r.status, r.body?.code]).toEqual([401, "invalid_session"]);
    expect((await refused(sdk(baseUrl, jwt).refreshAuth({ environmentId }))).status).toBe(401);
  }
  const ext = await refused(externalSignIn(baseUrl, environmentId, left.spentExternalJwt));
  expect([ext.status, ext.body.code]).toEqual([401, "external_jwt_replayed"]);
  const chat = await refused(chatSignIn(baseUrl, environmentId, left.spentChatLogin));
  expect([chat.status, chat.body.code]).toEqual([409, "chat_auth_replayed"]);
  // gRPC.
  const g = grpc(baseUrl);
  expect(await grpcCode(g.sessions.sessionCheck({ environmentId }, bearer(left.live)))).toBe("ok");
  for (const jwt of [left.revoked, left.deleted, left.hardDeleted])
    expect(await grpcCode(g.sessions.sessionCheck({ environmentId }, bearer(jwt)))).toBe("Unauthenticated");
  expect(await grpcCode(g.external.externalAuthSignin({ environmentId, jwt: left.spentExternalJwt }))).toBe("Unauthenticated");
  expect(await grpcCode(g.chat.chatSignIn({ environmentId, result: { chatAuthToken: left.spentChatLogin } }))).toBe("AlreadyExists");
}

describe("npm start's in-process store: a restart forgets nothing that keeps a door shut", () => {
  let db: Database;
  let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
  let dataDir: string;
  let running: RuntimeProcess | undefined;
  // One deployment across the restart: the same database, sealing keys and task queue.
  const sealingKeys = `restart:${randomBytes(32).toString("base64")}`;
  const backupKeys = `restart-backup:${randomBytes(32).toString("base64")}`;
  const taskQueue = `attack-restart-${randomUUID()}`;

  beforeAll(async () => {
    database = await cloneTemplateDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
    db = connectDatabase(database.url, { max: 2 });
    dataDir = mkdtempSync(path.join(os.tmpdir(), "sigil-restart-"));
  });
  afterAll(async () => {
    await stop();
    await closeDatabase(db);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  /** `src/main.ts dev` (what `npm start` runs) on the test database and Temporal, with no REDIS_URL. */
  async function start(): Promise<RuntimeProcess> {
    const rt = startRuntimeProcess(dataDir, await freeRuntimePorts(), {
      env: {
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: testEnv().temporalAddress,
        TEMPORAL_TASK_QUEUE: taskQueue,
        SIGIL_SEALING_KEYS: sealingKeys,
        SIGIL_BACKUP_SEALING_KEYS: backupKeys,
        SIGIL_SDK_RATE_LIMIT_PER_10S: "0",
        SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: "0",
        SIGIL_RATE_LIMIT_PER_MINUTE: "0",
        LOG_LEVEL: "warn",
      },
    });
    running = rt;
    await waitHealthy(rt);
    return rt;
  }
  async function stop() {
    const rt = running;
    running = undefined;
    if (!rt || rt.child.exitCode !== null) return;
    rt.child.kill("SIGTERM");
    await rt.exited;
  }

  it("refuses, after a restart, a revoked session, deleted users' tokens, a spent external JWT and a spent chat login", async () => {
    const t = await bootstrapTenant(db, { ownerEmail: `restart-${randomUUID()}@example.com` });
    const before = await start();
    await enableSignIns(before.baseUrl, t);
    const left = await closeDoors(before.baseUrl, t);
    await stop();
    const after = await start();
    await expectDoorsClosed(after.baseUrl, t.environmentId, left);
  }, 240_000);
});

describe("a Redis that forgets (no persistence, eviction): FLUSHALL forgets nothing that keeps a door shut", () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let app: TestApp;

  beforeAll(async () => {
    const server = execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim();
    redis = await startTestRedis(server, () => undefined);
    app = await startTestApp({ redisUrl: redis.url });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  it("refuses, after a flush, a revoked session, deleted users' tokens, a spent external JWT and a spent chat login", async () => {
    const t = await app.bootstrap({ ownerEmail: `flush-${randomUUID()}@example.com` });
    await enableSignIns(app.baseUrl, t);
    const left = await closeDoors(app.baseUrl, t);
    const client = createRedisClient({ url: redis.url });
    await client.connect();
    await client.flushAll();
    expect(await client.dbSize()).toBe(0);
    await client.close();
    await expectDoorsClosed(app.baseUrl, t.environmentId, left);
  }, 120_000);
});

describe("refresh rotates, once per token, within the session's absolute lifetime", () => {
  let app: TestApp;
  let t: BootstrapResult;

  beforeAll(async () => {
    app = await startTestApp();
    t = await app.bootstrap({ ownerEmail: `refresh-${randomUUID()}@example.com` });
  }, 60_000);
  afterAll(() => app?.stop());

  const env = () => t.environmentId;
  const rest = {
    refresh: (jwt: string) => sdk(app.baseUrl, jwt).refreshAuth({ environmentId: env() }).then((r) => r.jwt!),
    status: async (p: Promise<unknown>) => (await refused(p).then((r) => [r.status, r.body?.code])) as [number, string],
    check: (jwt: string) => sdk(app.baseUrl, jwt).sessionCheck({ environmentId: env() }),
  };
  const overGrpc = {
    refresh: async (jwt: string) => (await grpc(app.baseUrl).sessions.refreshAuth({ environmentId: env() }, bearer(jwt))).signIn!.jwt,
    status: async (p: Promise<unknown>) => [await grpcCode(p), ""] as [string, string],
    check: (jwt: string) => grpc(app.baseUrl).sessions.sessionCheck({ environmentId: env() }, bearer(jwt)),
  };
  const refusedAs = { rest: [401, "refresh_token_reused"], grpc: ["Unauthenticated", ""] } as const;
  /** Pretends the session's last refresh happened `seconds` ago (past the grace of a concurrent refresh). */
  const refreshedAgo = (sessionId: string, seconds: number) =>
    app.db.none("UPDATE sessions SET refreshed_at = now() - make_interval(secs => $2) WHERE id = $1", [sessionId, seconds]);

  for (const [name, via] of [["REST", rest], ["gRPC", overGrpc]] as const) {
    const reused = name === "REST" ? refusedAs.rest : refusedAs.grpc;

    it(`${name}: a token refreshes once; reused at once it is only refused, reused later it revokes the session`, async () => {
      const s = await signInAs(app, env());
      const first = await via.refresh(s.jwt);
      expect(decodeJwt(first).refresh_id).not.toBe(decodeJwt(s.jwt).refresh_id);
      // At once: the same client refreshing twice (two tabs, a retry). Refused, the session kept.
      expect(await via.status(via.refresh(s.jwt))).toEqual(reused);
      await via.check(first);
      // Later: a copy in other hands. Refused, and the whole session revoked, the newest tokens included.
      await refreshedAgo(s.sessionId, 60);
      expect(await via.status(via.refresh(s.jwt))).toEqual(reused);
      expect(await via.status(via.check(first))).toEqual(name === "REST" ? [401, "invalid_session"] : ["Unauthenticated", ""]);
      expect((await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [s.sessionId])).revoked_at).not.toBeNull();
      const audit = await app.db.one("SELECT actor_user_id, changes FROM audit_log WHERE resource_id = $1 AND action = 'user.session.revoked'", [s.sessionId]);
      expect(audit).toMatchObject({ actor_user_id: s.userId, changes: { after: { revokedBy: "refresh_reuse" } } });
    });

    it(`${name}: of two concurrent refreshes with one token exactly one wins`, async () => {
      const s = await signInAs(app, env());
      const results = await Promise.allSettled([via.refresh(s.jwt), via.refresh(s.jwt), via.refresh(s.jwt)]);
      const won = results.filter((r): r is PromiseFulfilledResult<string> => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected")) expect(await via.status(Promise.reject((r as PromiseRejectedResult).reason))).toEqual(reused);
      await via.check(won[0]!.value);
      // The winner's token refreshes on.
      await via.check(await via.refresh(won[0]!.value));
    });

    it(`${name}: past the session's absolute lifetime (default 30 days) a refresh is refused; near it the token ends there`, async () => {
      const s = await signInAs(app, env());
      // Ten minutes before the absolute end: the new token ends at that end, not a full lifetime later.
      await app.db.none("UPDATE sessions SET created_at = now() - interval '30 days' + interval '10 minutes' WHERE id = $1", [s.sessionId]);
      const near = await via.refresh(s.jwt);
      const end = Math.floor((await app.db.one("SELECT created_at + interval '30 days' AS e FROM sessions WHERE id = $1", [s.sessionId])).e.getTime() / 1000);
      expect(Math.abs(decodeJwt(near).exp! - end)).toBeLessThanOrEqual(1);
      await app.db.none("UPDATE sessions SET created_at = now() - interval '30 days 1 second' WHERE id = $1", [s.sessionId]);
      expect(await via.status(via.refresh(near))).toEqual(name === "REST" ? [401, "session_expired"] : ["Unauthenticated", ""]);
    });
  }

  it("a link or profile change renews a token's content but neither its expiry nor a spent refresh generation", async () => {
    const collecting = await call(app.baseUrl, "PUT", `/environments/${env()}`, {
      token: t.token,
      body: { sdk: { collectUserData: { firstName: { enabled: true, required: false } } } },
    });
    expect(collecting.status, collecting.text).toBe(200);
    const s = await signInAs(app, env());
    const fresh = await rest.refresh(s.jwt);
    // The spent token still authenticates until its expiry, and a call that answers new tokens keeps both.
    const renewed = await sdk(app.baseUrl, s.jwt).updateSelf({ environmentId: env(), userFields: { firstName: "Ada" } });
    expect(decodeJwt(renewed.jwt!)).toMatchObject({ exp: s.expiresAt, refresh_id: decodeJwt(s.jwt).refresh_id, first_name: "Ada" });
    expect(await rest.status(rest.refresh(renewed.jwt!))).toEqual([401, "refresh_token_reused"]);
    await rest.check(fresh);
  });
});
