import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDomainAllowed } from "../../src/domain/global-wallet/access-control.js";
import { hostnameOf, normalizeDomainEntry } from "../../src/domain/global-wallet/hostnames.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { GlobalWalletAccessControlService } from "../../src/gen/sigil/global_wallet/v0/access_control_service_pb.js";
import { GlobalWalletService } from "../../src/gen/sigil/global_wallet/v0/global_wallet_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";

let app: TestApp;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  other = await app.bootstrap({ ownerEmail: `other-${randomUUID()}@example.com` });
});
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `gw-${randomUUID()}@example.com` });
const settingsPath = (t: BootstrapResult) => `/environments/${t.environmentId}/globalWallet/settings`;
const acPath = (t: BootstrapResult) => `/environments/${t.environmentId}/globalWallet/accessControl`;
const count = async (table: string, environmentId: string) =>
  (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n as number;
const audits = (environmentId: string, action: string) =>
  app.db.any("SELECT * FROM audit_log WHERE environment_id = $1 AND action = $2 ORDER BY created_at", [environmentId, action]);

const fullSettings = {
  walletName: "Acme Wallet",
  walletIconUrl: "https://acme.example/icon.png",
  popupPageTitle: "Acme",
  customCssUrl: "https://acme.example/wallet.css",
  termsUrl: "https://acme.example/terms",
  privacyPolicyUrl: "https://acme.example/privacy",
  enabledChains: ["EVM", "SOL"],
};

describe("global wallet settings", () => {
  it("creates (201), reads, updates given fields only, and audits each change", async () => {
    const t = await tenant();
    expect((await call(app.baseUrl, "GET", settingsPath(t), { token: t.token })).status).toBe(404);
    const created = await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: fullSettings });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ ...fullSettings, environmentId: t.environmentId, enabledAt: expect.any(String) });
    const read = await call(app.baseUrl, "GET", settingsPath(t), { token: t.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const updated = await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body: { popupPageTitle: "Acme 2", customCssUrl: "" } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ walletName: "Acme Wallet", popupPageTitle: "Acme 2", termsUrl: fullSettings.termsUrl, enabledChains: ["EVM", "SOL"] });
    expect(updated.body.customCssUrl).toBeUndefined();
    const chains = await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body: { enabledChains: ["BTC"] } });
    expect(chains.body.enabledChains).toEqual(["BTC"]);
    expect(chains.body.popupPageTitle).toBe("Acme 2");

    const [c] = await audits(t.environmentId, "global_wallet.created");
    expect(c).toMatchObject({ resource_type: "global_wallet", resource_id: created.body.id, actor_token_id: t.tokenId });
    const u = await audits(t.environmentId, "global_wallet.updated");
    expect(u).toHaveLength(2);
    expect(u[0].changes.before.popupPageTitle).toBe("Acme");
    expect(u[0].changes.after.popupPageTitle).toBe("Acme 2");
  });

  it("accepts termsOfServiceUrl, the published client's name for termsUrl, and answers both", async () => {
    const t = await tenant();
    const created = await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "W", termsOfServiceUrl: "https://w.example/tos" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ termsUrl: "https://w.example/tos", termsOfServiceUrl: "https://w.example/tos" });
    const updated = await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body: { termsOfServiceUrl: "https://w.example/tos2" } });
    expect(updated.body).toMatchObject({ termsUrl: "https://w.example/tos2", termsOfServiceUrl: "https://w.example/tos2" });
    expect((await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body: { termsOfServiceUrl: "javascript:x" } })).status).toBe(400);
  });

  it("answers 409 to a second create and 404 to an update of none; both change nothing", async () => {
    const t = await tenant();
    const none = await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body: { walletName: "x" } });
    expect(none.status).toBe(404);
    expect(await count("global_wallet_settings", t.environmentId)).toBe(0);
    expect((await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "first" } })).status).toBe(201);
    const again = await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "second" } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "global_wallet_settings_already_exist", error: expect.any(String) });
    expect((await call(app.baseUrl, "GET", settingsPath(t), { token: t.token })).body.walletName).toBe("first");
    expect(await audits(t.environmentId, "global_wallet.created")).toHaveLength(1);
  });

  it("rejects bad URLs, unknown chains, a missing or empty name with 400 and changes nothing", async () => {
    const t = await tenant();
    const bad = [
      { walletName: "" },
      { walletName: "x", termsUrl: "not a url" },
      { walletName: "x", customCssUrl: "javascript:alert(1)" },
      { walletName: "x", privacyPolicyUrl: "ftp://x.example/p" },
      { walletName: "x", enabledChains: ["DOGE"] },
      { walletName: "x".repeat(101) },
    ];
    for (const body of bad) {
      const res = await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    expect(await count("global_wallet_settings", t.environmentId)).toBe(0);
    await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "ok", termsUrl: "https://ok.example/t" } });
    for (const body of [{ walletName: "" }, { termsUrl: "nope" }, { enabledChains: ["DOGE"] }]) {
      const res = await call(app.baseUrl, "PUT", settingsPath(t), { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const row = await app.db.one("SELECT wallet_name, terms_url FROM global_wallet_settings WHERE environment_id = $1", [t.environmentId]);
    expect(row).toEqual({ wallet_name: "ok", terms_url: "https://ok.example/t" });
    expect(await audits(t.environmentId, "global_wallet.updated")).toHaveLength(0);
  });

  it("disable clears enabledAt and enable sets it (audited); 404 without settings", async () => {
    const t = await tenant();
    expect((await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/globalWallet/enable`, { token: t.token })).status).toBe(404);
    await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "w" } });
    const off = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/globalWallet/disable`, { token: t.token });
    expect(off.status).toBe(200);
    expect(off.body.enabledAt).toBeNull();
    const on = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}/globalWallet/enable`, { token: t.token });
    expect(on.body.enabledAt).toEqual(expect.any(String));
    expect(await audits(t.environmentId, "global_wallet.disabled")).toHaveLength(1);
    expect(await audits(t.environmentId, "global_wallet.enabled")).toHaveLength(1);
  });
});

describe("access control", () => {
  it("creates, updates the mode, enables and disables, all audited", async () => {
    const t = await tenant();
    expect((await call(app.baseUrl, "GET", acPath(t), { token: t.token })).status).toBe(404);
    const created = await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "allowList" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ mode: "allowList", environmentId: t.environmentId, enabledAt: expect.any(String) });
    const dup = await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "blockList" } });
    expect(dup.status).toBe(409);
    const updated = await call(app.baseUrl, "PUT", acPath(t), { token: t.token, body: { mode: "blockList" } });
    expect(updated.status).toBe(200);
    expect(updated.body.mode).toBe("blockList");
    const off = await call(app.baseUrl, "PUT", `${acPath(t)}/disable`, { token: t.token });
    expect(off.body.enabledAt).toBeNull();
    const on = await call(app.baseUrl, "PUT", `${acPath(t)}/enable`, { token: t.token });
    expect(on.body.enabledAt).toEqual(expect.any(String));
    for (const action of ["created", "updated", "disabled", "enabled"])
      expect(await audits(t.environmentId, `global_wallet_access_control.${action}`), action).toHaveLength(1);
  });

  it("accepts the published client's type (allow, block) for the mode; a domain without type gets the mode's", async () => {
    const t = await tenant();
    const created = await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { type: "allow" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ mode: "allowList", type: "allow", projectEnvironmentId: t.environmentId, domains: [] });
    const listed = await call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain: "app.example" } });
    expect(listed.status, listed.text).toBe(201);
    expect(listed.body).toMatchObject({ domain: "app.example", type: "allow" });
    const updated = await call(app.baseUrl, "PUT", acPath(t), { token: t.token, body: { type: "block" } });
    expect(updated.body).toMatchObject({ mode: "blockList", type: "block", domains: [{ id: listed.body.id, domain: "app.example" }] });
    const blocked = await call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain: "bad.example" } });
    expect(blocked.body.type).toBe("block");
    expect(await isDomainAllowed(app.db, t.environmentId, "https://bad.example")).toBe(false);
    expect(await isDomainAllowed(app.db, t.environmentId, "https://app.example")).toBe(true);
    const off = await call(app.baseUrl, "PUT", `${acPath(t)}/disable`, { token: t.token });
    expect(off.body).toMatchObject({ enabledAt: null, domains: [{ domain: "app.example" }, { domain: "bad.example" }] });
    expect((await call(app.baseUrl, "PUT", acPath(t), { token: t.token, body: { type: "everything" } })).status).toBe(400);
    expect((await call(app.baseUrl, "PUT", acPath(t), { token: t.token, body: {} })).status).toBe(400);
    expect((await call(app.baseUrl, "GET", acPath(t), { token: t.token })).body.mode).toBe("blockList");
  });

  it("rejects an unknown mode with 400 and answers 404 to updates of none", async () => {
    const t = await tenant();
    expect((await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "everything" } })).status).toBe(400);
    expect((await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: {} })).status).toBe(400);
    expect(await count("global_wallet_access_controls", t.environmentId)).toBe(0);
    for (const [method, path, body] of [
      ["PUT", acPath(t), { mode: "allowList" }],
      ["PUT", `${acPath(t)}/enable`, undefined],
      ["PUT", `${acPath(t)}/disable`, undefined],
      ["POST", `${acPath(t)}/domains`, { domain: "a.example", type: "allow" }],
    ] as const) {
      const res = await call(app.baseUrl, method, path, { token: t.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await count("audit_log", t.environmentId)).toBe(0);
  });

  it("adds normalized domains, lists them with a count and pages, refuses duplicates (422) and bad hostnames (400), deletes", async () => {
    const t = await tenant();
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "allowList" } });
    const add = (domain: string, type = "allow") => call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain, type } });
    const a = await add("App.Example.COM.");
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ domain: "app.example.com", type: "allow", id: expect.any(String) });
    expect((await add("https://shop.example.com")).body.domain).toBe("shop.example.com");
    expect((await add("*.Partners.example", "allow")).body.domain).toBe("*.partners.example");
    expect((await add("bücher.example", "block")).body.domain).toBe("xn--bcher-kva.example");

    const dup = await add("APP.example.com", "block");
    expect(dup.status).toBe(422);
    expect(dup.body).toMatchObject({ code: "domain_already_exists", error: expect.any(String) });
    for (const bad of ["", "not a host", "https://x.example/path", "x.example:8080", "user@x.example", "*.", "ftp://x.example", "*.https://x.example", "-x.example"]) {
      const res = await add(bad);
      expect(res.status, bad).toBe(400);
    }
    expect(await count("global_wallet_access_control_domains", t.environmentId)).toBe(4);

    const list = await call(app.baseUrl, "GET", acPath(t), { token: t.token });
    expect(list.status).toBe(200);
    // The published client's GlobalWalletAccessControlResponse: the access control with its domains.
    expect(list.body).toMatchObject({ mode: "allowList", type: "allow", projectEnvironmentId: t.environmentId });
    expect(list.body.domains.map((d: any) => d.domain)).toEqual(["app.example.com", "shop.example.com", "*.partners.example", "xn--bcher-kva.example"]);
    const page = await call(app.baseUrl, "GET", `${acPath(t)}?offset=1&limit=2`, { token: t.token });
    expect(page.body.domains.map((d: any) => d.domain)).toEqual(["shop.example.com", "*.partners.example"]);
    expect((await call(app.baseUrl, "GET", `${acPath(t)}?limit=5000`, { token: t.token })).status).toBe(400);

    const del = await call(app.baseUrl, "DELETE", `${acPath(t)}/domains/${a.body.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await call(app.baseUrl, "DELETE", `${acPath(t)}/domains/${a.body.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "DELETE", `${acPath(t)}/domains/not-a-uuid`, { token: t.token })).status).toBe(400);
    expect(await audits(t.environmentId, "global_wallet_access_control_domain.created")).toHaveLength(4);
    const [d] = await audits(t.environmentId, "global_wallet_access_control_domain.deleted");
    expect(d).toMatchObject({ resource_id: a.body.id, resource_type: "global_wallet_access_control_domain" });
    expect(d.changes.before.domain).toBe("app.example.com");
  });
});

describe("isDomainAllowed", () => {
  it("allows every site without an access control or while it is disabled", async () => {
    const t = await tenant();
    expect(await isDomainAllowed(app.db, t.environmentId, "https://anything.example")).toBe(true);
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "allowList" } });
    expect(await isDomainAllowed(app.db, t.environmentId, "anything.example")).toBe(false);
    await call(app.baseUrl, "PUT", `${acPath(t)}/disable`, { token: t.token });
    expect(await isDomainAllowed(app.db, t.environmentId, "anything.example")).toBe(true);
  });

  it("allowList: only listed allowed hosts (exact or wildcard), blocked exceptions win by specificity", async () => {
    const t = await tenant();
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "allowList" } });
    const add = (domain: string, type: string) => call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain, type } });
    await add("app.example.com", "allow");
    await add("*.partners.example", "allow");
    await add("evil.partners.example", "block");
    const allowed = (d: string) => isDomainAllowed(app.db, t.environmentId, d);
    expect(await allowed("app.example.com")).toBe(true);
    expect(await allowed("https://APP.example.com:8443")).toBe(true);
    expect(await allowed("example.com")).toBe(false);
    expect(await allowed("other.example.com")).toBe(false);
    expect(await allowed("a.partners.example")).toBe(true);
    expect(await allowed("deep.a.partners.example")).toBe(true);
    // A wildcard covers subdomains, not the apex.
    expect(await allowed("partners.example")).toBe(false);
    expect(await allowed("evil.partners.example")).toBe(false);
    expect(await allowed("x.evil.partners.example")).toBe(true);
    expect(await allowed("not a host")).toBe(false);
    // Another environment's list does not apply.
    expect(await isDomainAllowed(app.db, other.environmentId, "other.example.com")).toBe(true);
  });

  it("blockList: every host but the blocked ones; a more specific allow entry carves an exception", async () => {
    const t = await tenant();
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "blockList" } });
    const add = (domain: string, type: string) => call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain, type } });
    await add("*.bad.example", "block");
    await add("good.bad.example", "allow");
    await add("phish.example", "block");
    const allowed = (d: string) => isDomainAllowed(app.db, t.environmentId, d);
    expect(await allowed("fine.example")).toBe(true);
    expect(await allowed("x.bad.example")).toBe(false);
    expect(await allowed("good.bad.example")).toBe(true);
    expect(await allowed("phish.example")).toBe(false);
    expect(await allowed("sub.phish.example")).toBe(true);
    // Switching the mode flips the default for unlisted hosts.
    await call(app.baseUrl, "PUT", acPath(t), { token: t.token, body: { mode: "allowList" } });
    expect(await allowed("fine.example")).toBe(false);
    expect(await allowed("good.bad.example")).toBe(true);
  });

  it("normalizes hostnames and origins alike", () => {
    expect(hostnameOf("HTTPS://Shop.Example.com/")).toBe("shop.example.com");
    expect(hostnameOf("shop.example.com.")).toBe("shop.example.com");
    expect(hostnameOf("https://shop.example.com/path")).toBeNull();
    expect(normalizeDomainEntry("*.EXAMPLE.com")).toBe("*.example.com");
    expect(() => normalizeDomainEntry("*.*.example.com")).toThrow();
  });
});

describe("connections", () => {
  const connectionsPath = (t: BootstrapResult) => `/environments/${t.environmentId}/globalWallet/connections`;
  /** A signed-in user of the environment connecting an app (the page's origin) through the SDK surface. */
  const connect = async (t: BootstrapResult, jwt: string, app_: string, expiresAt = new Date(Date.now() + 86_400_000)) => {
    const r = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/globalWallets/connections`, { token: jwt, body: { expiresAt: expiresAt.toISOString() }, headers: { origin: app_ } });
    return r;
  };
  const enabledTenant = async () => {
    const t = await tenant();
    await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "Acme" } });
    return t;
  };

  it("lists the apps users connected through the global wallet (bare array), filtered by user and status, paged", async () => {
    const t = await enabledTenant();
    expect((await call(app.baseUrl, "GET", connectionsPath(t), { token: t.token })).body).toEqual([]);
    const [alice, bob] = [await signInAs(app, t.environmentId), await signInAs(app, t.environmentId)];
    const a1 = (await connect(t, alice.jwt, "https://shop.example")).body;
    const expiresAt = new Date("2030-01-01T00:00:00Z");
    await connect(t, bob.jwt, "https://game.example", expiresAt);
    await call(app.baseUrl, "PUT", `/sdk/${t.environmentId}/globalWallets/connections/${a1.id}/disconnect`, { token: alice.jwt });

    const all = await call(app.baseUrl, "GET", connectionsPath(t), { token: t.token });
    expect(all.status, all.text).toBe(200);
    expect(all.body).toEqual([
      { id: a1.id, userId: alice.userId, appUrl: "https://shop.example", status: "disconnected", expiresAt: a1.expiresAt, createdAt: expect.any(String), updatedAt: expect.any(String) },
      expect.objectContaining({ userId: bob.userId, appUrl: "https://game.example", status: "connected", expiresAt: "2030-01-01T00:00:00Z" }),
    ]);
    expect((await call(app.baseUrl, "GET", `${connectionsPath(t)}?userId=${bob.userId}`, { token: t.token })).body.map((c: any) => c.userId)).toEqual([bob.userId]);
    expect((await call(app.baseUrl, "GET", `${connectionsPath(t)}?status=disconnected`, { token: t.token })).body.map((c: any) => c.id)).toEqual([a1.id]);
    expect((await call(app.baseUrl, "GET", `${connectionsPath(t)}?offset=1&limit=1`, { token: t.token })).body.map((c: any) => c.userId)).toEqual([bob.userId]);
    expect((await call(app.baseUrl, "GET", `${connectionsPath(t)}?status=gone`, { token: t.token })).status).toBe(400);
    expect((await call(app.baseUrl, "GET", `${connectionsPath(t)}?userId=nope`, { token: t.token })).status).toBe(400);
    // Another tenant sees nothing of them.
    expect((await call(app.baseUrl, "GET", connectionsPath(t), { token: other.token })).status).toBe(404);
  });

  it("records a connection only in the user's own environment and for an app the access control allows", async () => {
    const t = await enabledTenant();
    const alice = await signInAs(app, t.environmentId);
    expect((await call(app.baseUrl, "POST", `/sdk/${other.environmentId}/globalWallets/connections`, { token: alice.jwt, body: { expiresAt: new Date(Date.now() + 60_000).toISOString() }, headers: { origin: "https://shop.example" } })).status).toBe(401);
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { type: "allow" } });
    await call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain: "shop.example" } });
    expect((await connect(t, alice.jwt, "https://evil.example")).status).toBe(403);
    expect((await connect(t, alice.jwt, "https://shop.example")).status).toBe(201);
    expect(await count("global_wallet_connections", t.environmentId)).toBe(1);
    expect(await count("global_wallet_connections", other.environmentId)).toBe(0);
  });
});

describe("tenancy and transports", () => {
  it("another tenant's tokens get 404 on every operation and change nothing", async () => {
    const t = await tenant();
    await call(app.baseUrl, "POST", settingsPath(t), { token: t.token, body: { walletName: "mine" } });
    await call(app.baseUrl, "POST", acPath(t), { token: t.token, body: { mode: "allowList" } });
    const d = await call(app.baseUrl, "POST", `${acPath(t)}/domains`, { token: t.token, body: { domain: "mine.example", type: "allow" } });
    const snapshot = async () =>
      JSON.stringify([
        await app.db.any("SELECT * FROM global_wallet_settings WHERE environment_id = $1", [t.environmentId]),
        await app.db.any("SELECT * FROM global_wallet_access_controls WHERE environment_id = $1", [t.environmentId]),
        await app.db.any("SELECT * FROM global_wallet_access_control_domains WHERE environment_id = $1 ORDER BY id", [t.environmentId]),
        await count("audit_log", t.environmentId),
      ]);
    const before = await snapshot();
    const env = `/environments/${t.environmentId}/globalWallet`;
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", `${env}/settings`, undefined],
        ["POST", `${env}/settings`, { walletName: "theirs" }],
        ["PUT", `${env}/settings`, { walletName: "theirs" }],
        ["PUT", `${env}/enable`, undefined],
        ["PUT", `${env}/disable`, undefined],
        ["GET", `${env}/accessControl`, undefined],
        ["POST", `${env}/accessControl`, { mode: "blockList" }],
        ["PUT", `${env}/accessControl`, { mode: "blockList" }],
        ["PUT", `${env}/accessControl/enable`, undefined],
        ["PUT", `${env}/accessControl/disable`, undefined],
        ["POST", `${env}/accessControl/domains`, { domain: "theirs.example", type: "block" }],
        ["DELETE", `${env}/accessControl/domains/${d.body.id}`, undefined],
        ["GET", `${env}/connections`, undefined],
      ] as const) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    // The other tenant's own environment path cannot reach this tenant's domain id either.
    await call(app.baseUrl, "POST", `/environments/${other.environmentId}/globalWallet/accessControl`, { token: other.token, body: { mode: "allowList" } });
    const cross = await call(app.baseUrl, "DELETE", `/environments/${other.environmentId}/globalWallet/accessControl/domains/${d.body.id}`, { token: other.token });
    expect(cross.status).toBe(404);
    expect(await snapshot()).toBe(before);
  });

  it("serves settings and access control over Connect and gRPC", async () => {
    const t = await tenant();
    const headers = { authorization: `Bearer ${t.token}` };
    const gw = createClient(GlobalWalletService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await gw.createGlobalWalletSettings({ environmentId: t.environmentId, walletName: "grpc", enabledChains: ["EVM"] }, { headers });
    expect(created.settings?.walletName).toBe("grpc");
    const read = await gw.getGlobalWalletSettings({ environmentId: t.environmentId }, { headers });
    expect(read.settings?.id).toBe(created.settings?.id);
    const ac = createClient(GlobalWalletAccessControlService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    await ac.createGlobalWalletAccessControl({ environmentId: t.environmentId, mode: "allowList" }, { headers });
    await ac.addGlobalWalletAccessControlDomain({ environmentId: t.environmentId, domain: "grpc.example", type: "allow" }, { headers });
    const list = await ac.listGlobalWalletAccessControlDomains({ environmentId: t.environmentId }, { headers });
    expect(list.count).toBe(1);
    expect(list.domains[0]?.domain).toBe("grpc.example");
    expect(list.accessControl?.domains[0]?.domain).toBe("grpc.example");
  });
});
