import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Configuration, GlobalWalletConnectionStatusEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkGlobalWalletService } from "../../src/gen/sigil/global_wallet/v0/sdk_global_wallet_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";

/**
 * The signed-in user's global wallet connections through the published client: a page of an app records
 * that its user connected through the environment's global wallet (the app is the page's Origin), and
 * disconnects; the management list shows the result. Refusals: bad input, a disabled global wallet, an app
 * the access control refuses, another user's or another environment's connection.
 */
const SHOP = "https://shop.example";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/** A tenant whose global wallet is set up (created enabled) unless `enabled` is false. */
async function tenant(enabled = true): Promise<BootstrapResult> {
  const t = await app.bootstrap({ ownerEmail: `gw-sdk-${randomUUID()}@example.com` });
  if (enabled) {
    const s = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/globalWallet/settings`, { token: t.token, body: { walletName: "Acme" } });
    expect(s.status, s.text).toBe(201);
  }
  return t;
}

/** The published client as a page on `origin` calls it, signed in with `jwt`. */
const onPage = (jwt: string, origin: string | null = SHOP) =>
  new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: jwt, headers: { Authorization: `Bearer ${jwt}`, ...(origin ? { Origin: origin } : {}) } }));

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000);
const rows = (environmentId: string) => app.db.any("SELECT * FROM global_wallet_connections WHERE environment_id = $1 ORDER BY created_at, id", [environmentId]);
const audits = (environmentId: string, actionPrefix = "global_wallet_connection.") =>
  app.db.any("SELECT * FROM audit_log WHERE environment_id = $1 AND action LIKE $2 ORDER BY created_at", [environmentId, `${actionPrefix}%`]);
const managementList = async (t: BootstrapResult, query = "") => {
  const r = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/globalWallet/connections${query}`, { token: t.token });
  expect(r.status, r.text).toBe(200);
  return r.body as any[];
};

describe("createGlobalWalletConnection", () => {
  it("records the caller's connection to the calling page's app, audited, and the management list shows it", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const expiresAt = inAWeek();
    const c = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt } });
    expect(c).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: u.userId,
      appUrl: SHOP,
      status: GlobalWalletConnectionStatusEnum.Connected,
      expiresAt,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(await managementList(t)).toEqual([expect.objectContaining({ id: c.id, userId: u.userId, appUrl: SHOP, status: "connected", expiresAt: expiresAt.toISOString().replace(".000Z", "Z") })]);
    const a = await audits(t.environmentId);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ action: "global_wallet_connection.created", resource_id: c.id, actor_user_id: u.userId, actor_token_id: null });
    // No event of that name in the catalogue: nothing reaches the webhooks' outbox.
    expect(await app.db.any("SELECT 1 FROM events WHERE environment_id = $1 AND event_name LIKE 'global_wallet_connection.%'", [t.environmentId])).toEqual([]);
  });

  it("answers the caller's live connection to the same app instead of a duplicate, even when asked at once", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const first = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    // The same app spelled another way (upper case, default port) is the same origin.
    const later = new Date(Date.now() + 30 * 86_400_000);
    const again = await onPage(u.jwt, "HTTPS://Shop.Example:443").createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: later } });
    expect(again).toMatchObject({ id: first.id, appUrl: SHOP, status: "connected", expiresAt: later });
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: later } })),
    );
    expect(new Set(burst.map((b) => b.id))).toEqual(new Set([first.id]));
    // Another app, or another user of the same app: connections of their own.
    const game = await onPage(u.jwt, "https://game.example").createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: later } });
    const v = await signInAs(app, t.environmentId);
    const theirs = await onPage(v.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: later } });
    expect(new Set([first.id, game.id, theirs.id]).size).toBe(3);
    expect(await rows(t.environmentId)).toHaveLength(3);
    // Created, renewed once (the expiry moved), then nothing for the replays with the same expiry.
    expect((await audits(t.environmentId)).map((a) => a.action)).toEqual([
      "global_wallet_connection.created",
      "global_wallet_connection.updated",
      "global_wallet_connection.created",
      "global_wallet_connection.created",
    ]);
  });

  it("takes the app from appUrl when given (a global wallet page recording the app that opened it)", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const expiresAt = inAWeek().toISOString();
    const path = `/sdk/${t.environmentId}/globalWallets/connections`;
    const r = await call(app.baseUrl, "POST", path, { token: u.jwt, body: { expiresAt, appUrl: "https://Game.example" }, headers: { origin: "https://wallet.acme.example" } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ appUrl: "https://game.example", userId: u.userId, status: "connected" });
  });

  it("refuses bad input with 400 and the error body, changing nothing", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const path = `/sdk/${t.environmentId}/globalWallets/connections`;
    const future = inAWeek().toISOString();
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{}, { origin: SHOP }, "validation_error"],
      [{ expiresAt: "next tuesday" }, { origin: SHOP }, "invalid_request_body"],
      [{ expiresAt: new Date(Date.now() - 60_000).toISOString() }, { origin: SHOP }, "invalid_expires_at"],
      [{ expiresAt: future }, {}, "app_url_required"],
      [{ expiresAt: future }, { origin: "null" }, "app_url_required"],
      [{ expiresAt: future, appUrl: "https://shop.example/checkout" }, {}, "invalid_app_url"],
      [{ expiresAt: future, appUrl: "https://*.shop.example" }, {}, "invalid_app_url"],
      [{ expiresAt: future, appUrl: "shop.example" }, {}, "invalid_app_url"],
      [{ expiresAt: future, appUrl: "x".repeat(2049) }, {}, "validation_error"],
    ];
    for (const [body, headers, code] of cases) {
      const r = await call(app.baseUrl, "POST", path, { token: u.jwt, body, headers });
      expect(r.status, `${JSON.stringify(body)} ${JSON.stringify(headers)}: ${r.text}`).toBe(400);
      expect(r.body).toMatchObject({ code, error: expect.any(String) });
    }
    // Through the published client too: a page without an Origin (a native app) must name the app.
    const noOrigin = await refused(onPage(u.jwt, null).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } }));
    expect(noOrigin).toMatchObject({ status: 400, body: { code: "app_url_required" } });
    // No session, or another environment's session: 401.
    const other = await tenant();
    const stranger = await signInAs(app, other.environmentId);
    expect((await call(app.baseUrl, "POST", path, { body: { expiresAt: future }, headers: { origin: SHOP } })).status).toBe(401);
    expect((await call(app.baseUrl, "POST", path, { token: stranger.jwt, body: { expiresAt: future }, headers: { origin: SHOP } })).status).toBe(401);
    expect(await rows(t.environmentId)).toEqual([]);
    expect(await audits(t.environmentId)).toEqual([]);
  });

  it("answers 422 global_wallet_not_enabled while the environment's global wallet is missing or disabled", async () => {
    const t = await tenant(false);
    const u = await signInAs(app, t.environmentId);
    const create = () => refused(onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } }));
    expect(await create()).toMatchObject({ status: 422, body: { code: "global_wallet_not_enabled", error: expect.stringContaining("global wallet") } });
    await call(app.baseUrl, "POST", `/environments/${t.environmentId}/globalWallet/settings`, { token: t.token, body: { walletName: "Acme" } });
    await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/globalWallet/disable`, { token: t.token });
    expect(await create()).toMatchObject({ status: 422, body: { code: "global_wallet_not_enabled" } });
    expect(await rows(t.environmentId)).toEqual([]);
    await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/globalWallet/enable`, { token: t.token });
    expect((await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } })).status).toBe("connected");
  });

  it("answers 403 domain_not_allowed for an app the access control refuses", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const ac = `/environments/${t.environmentId}/globalWallet/accessControl`;
    await call(app.baseUrl, "POST", ac, { token: t.token, body: { type: "allow" } });
    await call(app.baseUrl, "PUT", `${ac}/enable`, { token: t.token });
    await call(app.baseUrl, "POST", `${ac}/domains`, { token: t.token, body: { domain: "shop.example" } });
    const evil = await refused(onPage(u.jwt, "https://evil.example").createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } }));
    expect(evil).toMatchObject({ status: 403, body: { code: "domain_not_allowed" } });
    expect((await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } })).appUrl).toBe(SHOP);
    expect(await rows(t.environmentId)).toHaveLength(1);
  });
});

describe("disconnectGlobalWalletConnection", () => {
  it("disconnects the caller's own connection, idempotently, audited once; a new connection to the app is a new row", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const c = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    const d = await onPage(u.jwt).disconnectGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionId: c.id });
    expect(d).toMatchObject({ id: c.id, userId: u.userId, appUrl: SHOP, status: GlobalWalletConnectionStatusEnum.Disconnected });
    const again = await onPage(u.jwt).disconnectGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionId: c.id });
    expect(again).toEqual(d);
    expect((await audits(t.environmentId)).map((a) => a.action)).toEqual(["global_wallet_connection.created", "global_wallet_connection.disconnected"]);
    expect((await managementList(t, "?status=disconnected")).map((x) => x.id)).toEqual([c.id]);
    const fresh = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    expect(fresh.id).not.toBe(c.id);
    expect((await managementList(t)).map((x) => [x.id, x.status])).toEqual([
      [c.id, "disconnected"],
      [fresh.id, "connected"],
    ]);
  });

  it("reads a connection past its expiresAt as disconnected; connecting again makes a new row and closes the lapsed one", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const c = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    await app.db.none("UPDATE global_wallet_connections SET expires_at = now() - interval '1 second' WHERE id = $1", [c.id]);
    expect((await managementList(t)).map((x) => [x.id, x.status])).toEqual([[c.id, "disconnected"]]);
    expect(await managementList(t, "?status=connected")).toEqual([]);
    expect((await managementList(t, "?status=disconnected")).map((x) => x.id)).toEqual([c.id]);
    const d = await onPage(u.jwt).disconnectGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionId: c.id });
    expect(d).toMatchObject({ id: c.id, status: GlobalWalletConnectionStatusEnum.Disconnected });
    const fresh = await onPage(u.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    expect(fresh.id).not.toBe(c.id);
    expect(fresh.status).toBe(GlobalWalletConnectionStatusEnum.Connected);
    expect((await rows(t.environmentId)).map((r) => [r.id, r.status])).toEqual([
      [c.id, "disconnected"],
      [fresh.id, "connected"],
    ]);
    expect((await audits(t.environmentId)).map((a) => a.action)).toEqual([
      "global_wallet_connection.created",
      "global_wallet_connection.disconnected",
      "global_wallet_connection.created",
    ]);
  });

  it("answers 404 for another user's connection, another environment's, or none, and 400 for a malformed id, changing nothing", async () => {
    const t = await tenant();
    const owner = await signInAs(app, t.environmentId);
    const c = await onPage(owner.jwt).createGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionCreateRequest: { expiresAt: inAWeek() } });
    const before = JSON.stringify(await rows(t.environmentId));
    const intruder = await signInAs(app, t.environmentId);
    const gone = (jwt: string, environmentId: string, id: string) => refused(onPage(jwt).disconnectGlobalWalletConnection({ environmentId, globalWalletConnectionId: id }));
    expect(await gone(intruder.jwt, t.environmentId, c.id)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await gone(owner.jwt, t.environmentId, randomUUID())).toMatchObject({ status: 404, body: { code: "not_found" } });
    // The same organization's other environment, with a session of its own: the id is not there.
    await call(app.baseUrl, "POST", `/environments/${t.liveEnvironmentId}/globalWallet/settings`, { token: t.token, body: { walletName: "Acme live" } });
    const liveUser = await signInAs(app, t.liveEnvironmentId);
    expect(await gone(liveUser.jwt, t.liveEnvironmentId, c.id)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await gone(owner.jwt, t.environmentId, "not-a-uuid")).toMatchObject({ status: 400, body: { code: "validation_error" } });
    expect(JSON.stringify(await rows(t.environmentId))).toBe(before);
    expect((await audits(t.environmentId)).map((a) => a.action)).toEqual(["global_wallet_connection.created"]);
  });
});

describe("over gRPC", () => {
  it("creates and disconnects with the session token and the page's origin as metadata", async () => {
    const t = await tenant();
    const u = await signInAs(app, t.environmentId);
    const client = createClient(SdkGlobalWalletService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${u.jwt}`, origin: SHOP };
    const expiresAt = timestampFromDate(inAWeek());
    const created = await client.createGlobalWalletConnection({ environmentId: t.environmentId, expiresAt }, { headers });
    expect(created.connection).toMatchObject({ userId: u.userId, appUrl: SHOP, status: "connected" });
    const named = await client.createGlobalWalletConnection({ environmentId: t.environmentId, expiresAt, appUrl: SHOP }, { headers: { authorization: headers.authorization } });
    expect(named.connection?.id).toBe(created.connection?.id);
    const d = await client.disconnectGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionId: created.connection!.id }, { headers });
    expect(d.connection?.status).toBe("disconnected");
    const err = await client.createGlobalWalletConnection({ environmentId: t.environmentId }, { headers }).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    const missing = await client.disconnectGlobalWalletConnection({ environmentId: t.environmentId, globalWalletConnectionId: randomUUID() }, { headers }).catch((e) => ConnectError.from(e));
    expect((missing as ConnectError).code).toBe(Code.NotFound);
  });
});
