import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { Browser } from "./support/browser.js";
import { approveAtProvider } from "./support/browser.js";
import { browseToApp, kind, registerAppOrigin, signInThroughProvider, startLogin } from "./support/oauth-flow.js";
import { startOidcPeer, type OidcPeer } from "./support/oidc-peer.js";

/**
 * The OAuth sign-in as an attacker would try it: a wrong or replayed state, a replayed code, ID tokens that
 * the (real) provider's key signed but that are for another audience, expired, for another nonce or
 * tampered, a mix-up between two issuers, another environment's code, and races on one code or state.
 */
let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
let idp: OidcPeer;
let partner: OidcPeer;
let publicHost: string;
let appHost: string;

const callbackUrl = (env: string, type: string) => `${app.config.publicUrl}/api/v0/sdk/${env}/providers/${type}/redirect`;
const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `oauth-attacks-${Date.now()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `oauth-attacks-other-${Date.now()}@example.com` });
  publicHost = new URL(app.config.publicUrl).host;
  appHost = new URL(app.baseUrl).host;
  idp = await startOidcPeer({ redirectUris: [callbackUrl(t.environmentId, "oidc"), callbackUrl(other.environmentId, "oidc")] });
  partner = await startOidcPeer({ redirectUris: [callbackUrl(t.environmentId, "partner")], clientId: "partner-client" });
  const providers: [BootstrapResult, Record<string, unknown>][] = [
    [t, { provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer }],
    [other, { provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer }],
    [t, { provider: "partner", clientId: partner.clientId, clientSecret: partner.clientSecret, issuer: partner.issuer }],
  ];
  for (const tenant of [t, other]) await registerAppOrigin(app.baseUrl, tenant);
  for (const [tenant, body] of providers) {
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, { token: tenant.token, body });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await idp?.close();
  await partner?.close();
  await app?.stop();
});

/**
 * Up to the provider's redirect to Sigil's callback: the callback URL (with code, state, iss), not yet
 * opened. The flow is the authorize page's without a redirect target, so the callback answers itself.
 */
async function toCallback(providerType = "oidc", environmentId = t.environmentId) {
  const html = await sdk().oauthAuthorizeHtml({ environmentId, providerType: kind(providerType) });
  const url = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
  const browser = new Browser({ [publicHost]: appHost });
  const page = await approveAtProvider(browser, url, `mallory-${Date.now()}-${Math.random()}`, publicHost);
  return { browser, callback: page.url, state: new URL(url).searchParams.get("state")! };
}
const openCallback = async (url: string) => {
  const real = new URL(url);
  real.host = appHost;
  const res = await fetch(real, { redirect: "manual" });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { code?: string; payload?: { reason?: string } } };
};
const countUsers = () => app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [t.environmentId]).then((r: { n: number }) => r.n);

describe("state", () => {
  it("a wrong, missing or replayed state is refused and changes nothing", async () => {
    const { callback } = await toCallback();
    const wrong = new URL(callback);
    wrong.searchParams.set("state", "x".repeat(43));
    expect(await openCallback(wrong.href)).toMatchObject({ status: 400, body: { code: "invalid_state" } });
    const missing = new URL(callback);
    missing.searchParams.delete("state");
    expect(await openCallback(missing.href)).toMatchObject({ status: 400, body: { code: "invalid_state" } });
    expect((await openCallback(callback)).status).toBe(200);
    // The same callback again (a replayed state and code): the state was single use.
    expect(await openCallback(callback)).toMatchObject({ status: 400, body: { code: "invalid_state" } });
  });

  it("two concurrent callbacks with one state: exactly one wins", async () => {
    const { callback } = await toCallback();
    const results = await Promise.all([openCallback(callback), openCallback(callback)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });
});

describe("codes", () => {
  it("a provider code replayed under a new state is refused by the issuer (PKCE, single use)", async () => {
    const first = await toCallback();
    expect((await openCallback(first.callback)).status).toBe(200);
    const second = await toCallback();
    const replay = new URL(second.callback);
    replay.searchParams.set("code", new URL(first.callback).searchParams.get("code")!);
    const users = await countUsers();
    expect(await openCallback(replay.href)).toMatchObject({ status: 400, body: { code: "oauth_callback_refused", payload: { reason: "invalid_grant" } } });
    expect(await countUsers()).toBe(users);
  });

  /** An app's flow up to its page: Sigil's one-time code (from the redirect), the state, the verifier. */
  async function codeAtApp() {
    const start = await startLogin(sdk(), { environmentId: t.environmentId, providerType: "oidc" });
    const { appUrl } = await browseToApp(start.url, { login: `mallory-${Date.now()}-${Math.random()}`, publicHost, appHost });
    return { code: appUrl!.searchParams.get("code")!, state: start.state, codeVerifier: start.codeVerifier };
  }

  it("Sigil's one-time code: single use, bound to its state and environment; two concurrent sign-ins, one wins", async () => {
    const first = await codeAtApp();
    const wrongState = await refused(sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: { ...first, state: "another-state-0123456789ab" } }));
    expect(wrongState).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });
    // The failed try consumed it: a stolen code cannot be tried against guessed states.
    expect(await refused(sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: first }))).toMatchObject({
      status: 400,
      body: { code: "invalid_oauth_code" },
    });
    const second = await codeAtApp();
    const crossTenant = await refused(sdk().oauthSignIn({ environmentId: other.environmentId, providerType: kind("oidc"), oauthRequest: second }));
    expect(crossTenant).toMatchObject({ status: 400, body: { code: "invalid_oauth_code" } });

    const third = await codeAtApp();
    const race = await Promise.allSettled([1, 2].map(() => sdk().oauthSignIn({ environmentId: t.environmentId, providerType: kind("oidc"), oauthRequest: third })));
    expect(race.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("ID tokens the provider's key signed, but not for us", () => {
  for (const [tamper, reason] of [
    ["audience", "id_token_audience"],
    ["expired", "id_token_expired"],
    ["nonce", "nonce_mismatch"],
    ["signature", "id_token_signature"],
  ] as const) {
    it(`refuses an ID token with a ${tamper === "signature" ? "broken signature" : `wrong ${tamper}`}`, async () => {
      const { callback, state } = await toCallback();
      const users = await countUsers();
      idp.tamper = tamper;
      try {
        const res = await openCallback(callback);
        expect(res).toMatchObject({ status: 400, body: { code: "oauth_callback_refused" } });
        if (reason) expect(res.body.payload?.reason).toBe(reason);
      } finally {
        idp.tamper = null;
      }
      const result = await sdk().oauthResult({ environmentId: t.environmentId, providerType: kind("oidc"), oauthResultRequest: { state } });
      expect(result.status).toBe("completed");
      expect(result.code).toBeFalsy();
      expect(result.error).toBeTruthy();
      expect(await countUsers()).toBe(users);
    });
  }
});

describe("mix-up between two issuers", () => {
  it("the partner provider signs in by form_post", async () => {
    const r = await signInThroughProvider(sdk(), { environmentId: t.environmentId, providerType: "partner", login: `pat-${Date.now()}`, publicHost, appHost });
    expect([r.page.status, r.page.body.includes("Signed in")]).toEqual([303, true]);
    expect(r.signIn.user.verifiedCredentials?.find((c) => c.format === "oauth")?.oauthProvider).toBe("partner");
  });

  it("a code and state of one issuer presented at the other's callback is refused", async () => {
    const { callback } = await toCallback("oidc");
    const u = new URL(callback);
    const form = new URLSearchParams({ code: u.searchParams.get("code")!, state: u.searchParams.get("state")!, iss: u.searchParams.get("iss")! });
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/partner/redirect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_state");
    // The state is burnt: the genuine callback no longer works either.
    expect((await openCallback(callback)).status).toBe(400);
  });

  it("the other issuer's identifier in the answer (iss) is refused", async () => {
    const { callback } = await toCallback("oidc");
    const u = new URL(callback);
    u.searchParams.set("iss", partner.issuer);
    expect(await openCallback(u.href)).toMatchObject({ status: 400, body: { code: "oauth_callback_refused" } });
  });

  it("another environment's state at this environment's callback is refused", async () => {
    const { callback } = await toCallback("oidc", other.environmentId);
    const u = new URL(callback);
    u.pathname = u.pathname.replace(other.environmentId, t.environmentId);
    expect(await openCallback(u.href)).toMatchObject({ status: 400, body: { code: "invalid_state" } });
  });
});
