import { randomBytes, randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkChatSignInService } from "../../src/gen/sigil/chat_sign_in/v0/chat_sign_in_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { neutralWords } from "../support/neutral-words.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { clientChatUser, signWidget, widgetUser } from "./support/chat-widget.js";
import { APP_PAGE, registerAppOrigin, withQuery } from "./support/oauth-flow.js";

/**
 * Signing in with the chat platform's login widget through the published client (its chat operations at
 * the contract's neutral paths): the widget page for a state and the app's redirect URL, the signed data
 * posted under it (answering the app's URL with the state and a one-time code), the poll, the sign-in with
 * state and code; or the signed data sent directly. Attacks: tampered data, another bot's signature, stale
 * data, replayed data or state, two sign-ins with one code.
 */

let app: TestApp;
let tenant: BootstrapResult;
const BOT = { name: "sigil_test_bot", token: `123456:${randomBytes(16).toString("hex")}` };

beforeAll(async () => {
  app = await startTestApp();
  tenant = await newTenant();
  await enableChat(tenant, BOT.name, BOT.token);
  await registerAppOrigin(app.baseUrl, tenant);
}, 60_000);
afterAll(() => app?.stop());

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt).withMiddleware(neutralWords);
const newTenant = () => app.bootstrap({ ownerEmail: `chat-sign-in-${randomUUID()}@example.com` });
const newState = () => randomBytes(16).toString("hex");
async function enableChat(t: BootstrapResult, clientId: string, clientSecret: string) {
  const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/settings/providers`, { token: t.token, body: { provider: "chat", clientId, clientSecret } });
  if (res.status >= 300) throw new Error(`provider: ${res.status} ${res.text}`);
}
/** The widget page for a state, opened with the app's page as its redirect URL. */
const openPage = (state: string, environmentId = tenant.environmentId) => withQuery(sdk(), { redirectUrl: APP_PAGE }).getTelegramAuthRaw({ environmentId, state });
/** What the page does with the widget's signed data: posts it under the state; answers the code sent to the app. */
async function post(state: string, signed: Record<string, string>, environmentId = tenant.environmentId) {
  const res = await sdk().postTelegramAuthRaw({ environmentId, telegramPostRequest: { state, telegramUser: clientChatUser(signed) } });
  const { redirectUrl } = (await res.raw.json()) as { redirectUrl: string };
  expect(redirectUrl.startsWith(`${APP_PAGE}?`)).toBe(true);
  return new URL(redirectUrl).searchParams.get("code")!;
}
/** The widget flow up to the signed data posted under a fresh state: the state and the app's one-time code. */
async function completedState(environmentId = tenant.environmentId, signed = signWidget(BOT.token, widgetUser())) {
  const state = newState();
  await openPage(state, environmentId);
  return { state, code: await post(state, signed, environmentId), signed };
}

describe("the widget flow", () => {
  it("page, post, poll, sign-in: a new user with the chat account, the same user next time", async () => {
    const state = newState();
    const page = await openPage(state);
    const html = await page.raw.text();
    expect(page.raw.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.raw.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(html).toContain(`data-telegram-login="${BOT.name}"`);
    expect(html).toContain(JSON.stringify(state));

    const pending = await refused(sdk().telegramCheckAuth({ environmentId: tenant.environmentId, oauthResultRequest: { state } }));
    expect([pending.status, pending.body.code]).toEqual([404, "chat_auth_pending"]);

    const user = widgetUser();
    const signed = signWidget(BOT.token, user);
    const code = await post(state, signed);
    await sdk().telegramCheckAuth({ environmentId: tenant.environmentId, oauthResultRequest: { state } });

    const first = await sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { state, code } });
    expect(first.user.newUser).toBe(true);
    const cred = first.user.verifiedCredentials?.find((c) => c.format === "oauth");
    expect(cred).toBeDefined();
    await sdk(first.jwt).sessionCheck({ environmentId: tenant.environmentId });
    const row = await app.db.one("SELECT oauth_provider, oauth_account_id, oauth_username FROM verified_credentials WHERE user_id = $1 AND format = 'oauth'", [first.user.id]);
    expect(row).toEqual({ oauth_provider: "chat", oauth_account_id: String(user.id), oauth_username: user.username });

    // The code is used up.
    const again = await refused(sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { state, code } }));
    expect([again.status, again.body.code]).toEqual([400, "invalid_chat_auth_code"]);

    const second = await completedState(tenant.environmentId, signWidget(BOT.token, { ...user, auth_date: user.auth_date + 1 }));
    const next = await sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { state: second.state, code: second.code } });
    expect(next.user.newUser).toBe(false);
    expect(next.user.id).toBe(first.user.id);
  });

  it("a state opens one page; unknown states are 404; of two sign-ins with one code exactly one wins", async () => {
    const state = newState();
    await openPage(state);
    expect((await refused(openPage(state))).status).toBe(409);
    const unknown = await refused(sdk().telegramCheckAuth({ environmentId: tenant.environmentId, oauthResultRequest: { state: newState() } }));
    expect([unknown.status, unknown.body.code]).toEqual([404, "chat_auth_not_found"]);
    const post = await refused(
      sdk().postTelegramAuth({ environmentId: tenant.environmentId, telegramPostRequest: { state: newState(), telegramUser: clientChatUser(signWidget(BOT.token, widgetUser())) } }),
    );
    expect(post.status).toBe(404);
    expect((await refused(openPage("short"))).status).toBe(400);

    const raced = await completedState();
    const results = await Promise.allSettled([1, 2].map(() => sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { state: raced.state, code: raced.code } })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("refuses tampered data, another bot's signature, stale data and a replay, and creates nobody", async () => {
    const before = await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [tenant.environmentId]);
    const post = async (signed: Record<string, string>) => {
      const state = newState();
      await openPage(state);
      return refused(sdk().postTelegramAuth({ environmentId: tenant.environmentId, telegramPostRequest: { state, telegramUser: clientChatUser(signed) } }));
    };
    const tampered = { ...signWidget(BOT.token, widgetUser()), username: "admin" };
    expect(await post(tampered)).toMatchObject({ status: 422, body: { code: "invalid_chat_auth" } });
    const otherBot = signWidget(`999:${randomBytes(16).toString("hex")}`, widgetUser());
    expect(await post(otherBot)).toMatchObject({ status: 422, body: { code: "invalid_chat_auth" } });
    const stale = signWidget(BOT.token, widgetUser({ auth_date: Math.floor(Date.now() / 1000) - 2 * 24 * 3600 }));
    expect(await post(stale)).toMatchObject({ status: 422, body: { code: "chat_auth_expired" } });
    const future = signWidget(BOT.token, widgetUser({ auth_date: Math.floor(Date.now() / 1000) + 3600 }));
    expect(await post(future)).toMatchObject({ status: 422, body: { code: "chat_auth_expired" } });

    const { signed } = await completedState();
    expect(await post(signed)).toMatchObject({ status: 409, body: { code: "chat_auth_replayed" } });
    const after = await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [tenant.environmentId]);
    expect(after.n).toBe(before.n);
  });

  it("another environment's bot signature is refused here (cross-tenant), and chat sign-in needs the provider", async () => {
    const other = await newTenant();
    const otherToken = `777:${randomBytes(16).toString("hex")}`;
    await enableChat(other, "other_bot", otherToken);
    const theirs = new URLSearchParams(signWidget(otherToken, widgetUser())).toString();
    expect(await refused(sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { telegramAuthToken: theirs } }))).toMatchObject({
      status: 422,
      body: { code: "invalid_chat_auth" },
    });
    expect((await sdk().telegramSignIn({ environmentId: other.environmentId, oauthResultRequest: { telegramAuthToken: theirs } })).user.newUser).toBe(true);

    const off = await newTenant();
    const disabled = await refused(sdk().getTelegramAuth({ environmentId: off.environmentId, state: newState() }));
    expect([disabled.status, disabled.body.code]).toEqual([403, "sign_in_method_disabled"]);
  });

  it("keeps the bot token sealed at rest", async () => {
    const rows = await app.db.any("SELECT client_secret_sealed FROM providers WHERE environment_id = $1 AND provider = 'chat'", [tenant.environmentId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].client_secret_sealed).not.toContain(BOT.token.split(":")[1]);
  });
});

describe("the signed data as a token", () => {
  it("signs in once with it; a replay is 409", async () => {
    const token = new URLSearchParams(signWidget(BOT.token, widgetUser())).toString();
    const r = await sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { telegramAuthToken: token } });
    expect(r.user.newUser).toBe(true);
    const replay = await refused(sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: { telegramAuthToken: token } }));
    expect([replay.status, replay.body.code]).toEqual([409, "chat_auth_replayed"]);
    const none = await refused(sdk().telegramSignIn({ environmentId: tenant.environmentId, oauthResultRequest: {} }));
    expect([none.status, none.body.code]).toEqual([422, "chat_auth_required"]);
  });
});

describe("chatVerify", () => {
  it("adds the chat account to the signed-in user; another user's is 422", async () => {
    const user = await signInAs(app, tenant.environmentId);
    const signed = signWidget(BOT.token, widgetUser());
    const { state, code } = await completedState(tenant.environmentId, signed);
    const linked = await sdk(user.jwt).telegramVerify({ environmentId: tenant.environmentId, oauthResultRequest: { state, code } });
    expect(linked.user.id).toBe(user.userId);
    expect(linked.user.verifiedCredentials?.some((c) => c.format === "oauth")).toBe(true);

    const other = await signInAs(app, tenant.environmentId);
    const second = await completedState(tenant.environmentId, signWidget(BOT.token, { ...widgetUser(), id: Number(signed.id) }));
    const taken = await refused(sdk(other.jwt).telegramVerify({ environmentId: tenant.environmentId, oauthResultRequest: { state: second.state, code: second.code } }));
    expect([taken.status, taken.body.code]).toEqual([422, "credential_owned_by_another_user"]);
  });
});

describe("over gRPC", () => {
  it("ChatSignIn with the signed data", async () => {
    const client = createClient(SdkChatSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const token = new URLSearchParams(signWidget(BOT.token, widgetUser())).toString();
    const r = await client.chatSignIn({ environmentId: tenant.environmentId, result: { chatAuthToken: token } });
    expect(r.signIn?.user?.newUser).toBe(true);
  });
});
