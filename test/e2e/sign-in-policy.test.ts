import { randomUUID } from "node:crypto";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { evmProof, newEvmWallet } from "../support/wallet-proofs.js";
import { sdkFor } from "../support/sdk-client.js";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { codeIn, startSmtpPeer } from "./support/code-peers.js";

/**
 * Sign-in obeys what the management surface stored: allowlists by outcome (siteAccess, block, scope), the
 * allowed e-mail domains of new users, and a disabled sign-in method; every refusal changes nothing.
 */
let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  app = await startTestApp({ verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url } });
});
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

const newTenant = () => app.bootstrap({ ownerEmail: `policy-${randomUUID()}@example.com` });

async function rest(t: BootstrapResult, method: string, path: string, body?: unknown) {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** An enabled allowlist with these wallet addresses. */
async function allowlist(t: BootstrapResult, outcome: string, addresses: string[], scope?: string) {
  const list = await rest(t, "POST", `/environments/${t.environmentId}/allowlists`, { name: `${outcome} list`, outcome, ...(scope ? { scope } : {}) });
  for (const a of addresses) await rest(t, "POST", `/allowlists/${list.id}/entries`, { walletPublicKey: a });
  await rest(t, "PUT", `/allowlists/${list.id}/enable`);
  return list;
}

/** Signs in with a wallet through the client; the status and body the server answered. */
async function walletSignIn(t: BootstrapResult, wallet = newEvmWallet()) {
  const client = sdkFor(app.baseUrl);
  const { nonce } = await client.getNonce({ environmentId: t.environmentId });
  try {
    const r = await client.verify({ environmentId: t.environmentId, verifyRequest: await evmProof(wallet, nonce!) });
    return { status: 200, body: r as unknown as Record<string, any> };
  } catch (err) {
    const res = err as Response;
    return { status: res.status, body: await res.json() };
  }
}

const users = async (t: BootstrapResult) => (await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [t.environmentId])).n;

describe("allowlists decide who signs in", () => {
  it("siteAccess: only listed wallets sign in; others get 403 not_on_allowlist and no user is made", async () => {
    const t = await newTenant();
    const listed = newEvmWallet();
    await allowlist(t, "siteAccess", [listed.address]);
    const outsider = await walletSignIn(t);
    expect(outsider).toMatchObject({ status: 403, body: { code: "not_on_allowlist" } });
    expect(await users(t)).toBe(0);
    expect((await walletSignIn(t, listed)).status).toBe(200);
    expect(await users(t)).toBe(1);
  });

  it("block: listed wallets never sign in, even a returning user; a disabled list decides nothing", async () => {
    const t = await newTenant();
    const wallet = newEvmWallet();
    expect((await walletSignIn(t, wallet)).status).toBe(200);
    const list = await allowlist(t, "block", [wallet.address]);
    expect(await walletSignIn(t, wallet)).toMatchObject({ status: 403, body: { code: "blocked_by_allowlist" } });
    expect((await walletSignIn(t)).status).toBe(200);
    await rest(t, "PUT", `/allowlists/${list.id}/disable`);
    expect((await walletSignIn(t, wallet)).status).toBe(200);
  });

  it("scope: listed wallets get the list's scope in their token, kept across refresh", async () => {
    const t = await newTenant();
    const wallet = newEvmWallet();
    await allowlist(t, "scope", [wallet.address], "beta:access");
    const listed = await walletSignIn(t, wallet);
    expect(String(decodeJwt(listed.body.jwt).scope).split(" ").sort()).toEqual(["beta:access", "user:basic"]);
    expect(listed.body.user.scope).toBe("user:basic beta:access");
    const refreshed = await sdkFor(app.baseUrl, listed.body.jwt).refreshAuth({ environmentId: t.environmentId });
    expect(decodeJwt(refreshed.jwt!).scope).toBe("user:basic beta:access");
    const other = await walletSignIn(t);
    expect(decodeJwt(other.body.jwt).scope).toBe("user:basic");
  });
});

describe("settings the methods obey", () => {
  it("a new user's e-mail must be of an allowed domain when the environment names any; known users still sign in", async () => {
    const t = await newTenant();
    await rest(t, "POST", `/environments/${t.environmentId}/users`, { email: "old@example.com" });
    await rest(t, "PUT", `/environments/${t.environmentId}`, { security: { allowedEmailDomains: ["example.org"] } });
    const client = sdkFor(app.baseUrl);
    const signIn = async (email: string) => {
      const before = smtp.countTo(email);
      const { verificationUUID } = await client.createEmailVerification({ environmentId: t.environmentId, emailVerificationCreateRequest: { email } });
      const code = codeIn((await smtp.mailTo(email, before)).parsed.text ?? "");
      return client
        .signInWithEmailVerification({ environmentId: t.environmentId, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } })
        .then((r) => ({ status: 200, body: r as unknown as Record<string, any> }), async (e: Response) => ({ status: e.status, body: await e.json() }));
    };
    expect(await signIn("eve@example.com")).toMatchObject({ status: 403, body: { code: "email_domain_not_allowed" } });
    expect(await users(t)).toBe(1);
    expect(await signIn("ann@example.org")).toMatchObject({ status: 200, body: { user: { newUser: true } } });
    // The rule is for sign-ups: a user the developer made before keeps signing in.
    expect(await signIn("old@example.com")).toMatchObject({ status: 200, body: { user: { newUser: false } } });
  });

  it("e-mail sign-in is off once its provider is configured and disabled", async () => {
    const t = await newTenant();
    const provider = await rest(t, "POST", `/environments/${t.environmentId}/settings/providers`, { provider: "emailOnly" });
    await rest(t, "PUT", `/settings/providers/${provider.id}/disable`);
    const res = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/emailVerifications/create`, { body: { email: "bob@example.com" } });
    expect(res.status, res.text).toBe(403);
    expect(res.body).toMatchObject({ code: "sign_in_method_disabled" });
  });
});
