import { randomUUID } from "node:crypto";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, CoinbaseOnrampOrderPaymentMethod, type ExchangeKeyEnum, type SDKApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkExchangeAccountsService } from "../../src/gen/sigil/exchange_accounts/v0/sdk_exchange_accounts_service_pb.js";
import type { TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { TWO_FACTOR_CODE, type ExchangePeer } from "./support/exchange-peer.js";
import { startExchangeSetup, type ExchangeSetup } from "./support/exchange-setup.js";

/**
 * The exchange account API (getUserAccounts, postExchangeAccountTransfer, getExchangeTransactions,
 * getExchangeTransferDestinations, and cbOauthRedirect: the exchange's OAuth redirect that links the user's
 * account) through the published client, against a loopback exchange that checks what Sigil signs.
 */

let setup: ExchangeSetup;
let app: TestApp;
let peer: ExchangePeer;
let t: BootstrapResult;

// The contract's neutral exchange kind; the client's ExchangeKeyEnum names only vendors.
const KEY = "generic" as ExchangeKeyEnum;
const sdk = (jwt?: string): SDKApi => setup.sdk(jwt);

async function startLink(environmentId: string, jwt: string, body: Record<string, unknown> = {}) {
  const res = await call(app.baseUrl, "POST", `/sdk/${environmentId}/exchange/generic/link`, { token: jwt, body });
  expect(res.status, res.text).toBe(200);
  return res.body.url as string;
}

/** A signed-in user who linked exchange login `login` through the whole OAuth flow. */
async function linkedUser(login: string, environmentId = t.environmentId) {
  const user = await signInAs(app, environmentId);
  const back = await peer.authorize(await startLink(environmentId, user.jwt), login);
  const page = await sdk().cbOauthRedirect({ environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! });
  expect(page).toContain("linked");
  return user;
}

const account = (id: string, eth = "2.5", requires2fa = false) => ({
  id,
  type: "wallet",
  name: `${id} wallet`,
  chain: "EVM",
  balances: [{ currency: "ETH", balance: eth, available: eth }],
  requires2fa,
});

beforeAll(async () => {
  setup = await startExchangeSetup();
  ({ app, peer, tenant: t } = setup);
}, 90_000);
afterAll(() => setup?.stop());
beforeEach(() => {
  peer.down = false;
});

describe("linking an exchange account (OAuth 2 with PKCE, state bound to the user)", () => {
  it("links through the exchange's redirect: the peer saw a signed-in S256 challenge, a verifier that matches it, the client's credentials", async () => {
    const login = `alice-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await signInAs(app, t.environmentId);
    const url = new URL(await startLink(t.environmentId, user.jwt));
    expect(url.origin + url.pathname).toBe(`${peer.baseUrl}/oauth/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("client_id")).toBe(peer.apiKey);
    expect(url.searchParams.get("redirect_uri")).toBe(`${app.config.publicUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl`);
    const back = await peer.authorize(url.toString(), login);
    const page = await sdk().cbOauthRedirect({ environmentId: t.environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! });
    expect(page).toContain("linked");
    const row = await app.db.one("SELECT * FROM exchange_account_links WHERE environment_id = $1 AND user_id = $2", [t.environmentId, user.userId]);
    // Sealed at rest, bound to its exchange and user: the token the exchange issued is not in the row.
    const opened = app.deps.sealer.open(row.access_token_sealed, `exchange-link:${row.exchange_id}:${user.userId}:access_token`);
    expect(opened).toMatch(/^at_[0-9a-f]{32}$/);
    expect(JSON.stringify(row)).not.toContain(opened);
    expect(peer.violations).toEqual([]);
  });

  it("a replayed state is refused (400 invalid_state) and links nothing more", async () => {
    const login = `replay-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await signInAs(app, t.environmentId);
    const back = await peer.authorize(await startLink(t.environmentId, user.jwt), login);
    const q = { environmentId: t.environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! };
    await sdk().cbOauthRedirect(q);
    const again = await refused(sdk().cbOauthRedirect(q));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: "invalid_state" });
  });

  it("another user's state with the attacker's own code links nothing: the state's verifier does not match the attacker's challenge", async () => {
    const victim = await signInAs(app, t.environmentId);
    const attacker = await signInAs(app, t.environmentId);
    const attackerLogin = `mallory-${randomUUID()}`;
    peer.addUser(attackerLogin, [account(`acc-${randomUUID()}`)]);
    const victimState = new URL(await startLink(t.environmentId, victim.jwt)).searchParams.get("state")!;
    const attackerBack = await peer.authorize(await startLink(t.environmentId, attacker.jwt), attackerLogin);
    const res = await refused(sdk().cbOauthRedirect({ environmentId: t.environmentId, code: attackerBack.searchParams.get("code")!, state: victimState }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "exchange_link_failed" });
    const linked = await app.db.any("SELECT 1 FROM exchange_account_links WHERE user_id = $1", [victim.userId]);
    expect(linked).toEqual([]);
    const accounts = await refused(sdk(victim.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }));
    expect(accounts.body).toMatchObject({ code: "exchange_not_linked" });
  });

  it("a denial at the exchange without a page to return to is 400 exchange_link_failed", async () => {
    const user = await signInAs(app, t.environmentId);
    const state = new URL(await startLink(t.environmentId, user.jwt)).searchParams.get("state")!;
    const r = await refused(sdk().cbOauthRedirect({ environmentId: t.environmentId, error: "access_denied", state }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "exchange_link_failed", payload: { error: "access_denied" } });
  });

  it("a redirect without state, or with another environment's state, is refused", async () => {
    const noState = await refused(sdk().cbOauthRedirect({ environmentId: t.environmentId, code: "abc" }));
    expect(noState.status).toBe(400);
    expect(noState.body).toMatchObject({ code: "invalid_state" });
    const { tenant: other } = await setup.connectedTenant();
    const user = await signInAs(app, other.environmentId);
    const state = new URL(await startLink(other.environmentId, user.jwt)).searchParams.get("state")!;
    const cross = await refused(sdk().cbOauthRedirect({ environmentId: t.environmentId, code: "abc", state }));
    expect(cross.status).toBe(400);
    expect(cross.body).toMatchObject({ code: "invalid_state" });
  });

  it("a code redeemed without the PKCE verifier is refused by the exchange (the peer demands it)", async () => {
    const login = `pkce-${randomUUID()}`;
    peer.addUser(login, []);
    const user = await signInAs(app, t.environmentId);
    const back = await peer.authorize(await startLink(t.environmentId, user.jwt), login);
    // An attacker holding the intercepted code but not Sigil's verifier.
    const res = await fetch(`${peer.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${peer.apiKey}:${encodeURIComponent(peer.apiSecret)}`).toString("base64")}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code: back.searchParams.get("code")!, redirect_uri: `${app.config.publicUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl` }),
    });
    expect(res.status).toBe(400);
    peer.violations.length = 0;
  });

  it("sends the browser back to the link's redirect URL (an allowed origin) with the outcome", async () => {
    const origin = `https://app-${randomUUID().slice(0, 8)}.example`;
    const added = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin } });
    expect(added.status, added.text).toBeLessThan(300);
    const login = `redirect-${randomUUID()}`;
    peer.addUser(login, []);
    const user = await signInAs(app, t.environmentId);
    const back = await peer.authorize(await startLink(t.environmentId, user.jwt, { redirectUrl: `${origin}/done` }), login);
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl${back.search}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${origin}/done?exchangeLink=linked`);
    // The user denied access at the exchange: the app's page hears of it, and nothing is linked.
    const denied = new URL(await startLink(t.environmentId, user.jwt, { redirectUrl: `${origin}/done` }));
    const deniedRes = await fetch(
      `${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl?error=access_denied&state=${denied.searchParams.get("state")}`,
      { redirect: "manual" },
    );
    expect(deniedRes.status).toBe(303);
    expect(deniedRes.headers.get("location")).toBe(`${origin}/done?exchangeLink=failed&error=access_denied`);
    const elsewhere = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/exchange/generic/link`, { token: user.jwt, body: { redirectUrl: "https://evil.example/x" } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body).toMatchObject({ code: "redirect_url_not_allowed" });
  });
});

describe("accounts, transfers, transactions, destinations", () => {
  it("answers the linked user's accounts as the exchange has them, over signed requests", async () => {
    const login = `bob-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "1.25")]);
    const user = await linkedUser(login);
    const accounts = await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(accounts).toEqual([{ id, exchange: "generic", type: "wallet", name: `${id} wallet`, chain: "EVM", balances: [{ currency: "ETH", balance: 1.25, availableBalance: 1.25 }] }]);
    // The client's filters reach the exchange, inside the signed path.
    await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY, networkId: 8453, chainName: ChainEnum.Evm });
    expect(peer.requests.at(-1)!.path).toBe("/v1/accounts?network_id=8453&chain=EVM");
    expect(peer.violations).toEqual([]);
  });

  it("moves funds from the user's own account once per idempotency key, and lists the transaction", async () => {
    const login = `carol-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "3")]);
    const user = await linkedUser(login);
    const request = { environmentId: t.environmentId, exchangeKey: KEY, accountId: id, createExchangeTransferRequest: { to: "0x2222222222222222222222222222222222222222", amount: 1, currency: "ETH", id: randomUUID() } };
    const first = await sdk(user.jwt).postExchangeAccountTransfer(request);
    expect(first).toMatchObject({ exchangeAccountId: id, status: "completed", amount: 1, currency: "ETH" });
    const second = await sdk(user.jwt).postExchangeAccountTransfer(request);
    expect(second.id).toBe(first.id);
    const [acc] = await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(acc!.balances[0]!.balance).toBe(2);
    const txs = await sdk(user.jwt).getExchangeTransactions({ environmentId: t.environmentId, exchangeKey: KEY, accountId: id });
    expect(txs).toEqual([expect.objectContaining({ transactionId: first.id, status: "completed", amount: 1, currency: "ETH" })]);
    const keys = peer.requests.filter((r) => r.path === `/v1/accounts/${id}/transfers`).map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(peer.violations).toEqual([]);
  });

  it("scopes the idempotency key to the user: another user's equal key is not answered with this user's transfer", async () => {
    const sharedKey = randomUUID();
    const ids = [`acc-${randomUUID()}`, `acc-${randomUUID()}`];
    const made = [];
    for (const id of ids) {
      const login = `key-${randomUUID()}`;
      peer.addUser(login, [account(id, "3")]);
      const user = await linkedUser(login);
      made.push(
        await sdk(user.jwt).postExchangeAccountTransfer({
          environmentId: t.environmentId, exchangeKey: KEY, accountId: id,
          createExchangeTransferRequest: { to: "0x2222222222222222222222222222222222222222", amount: 1, currency: "ETH", id: sharedKey },
        }),
      );
    }
    expect(made[0]!.id).not.toBe(made[1]!.id);
    expect(made.map((m) => m.exchangeAccountId)).toEqual(ids);
  });

  it("refuses a transfer from someone else's account id (404) before the exchange is asked to move anything", async () => {
    const victimAccount = `acc-${randomUUID()}`;
    peer.addUser(`victim-${randomUUID()}`, [account(victimAccount, "5")]);
    const attackerLogin = `eve-${randomUUID()}`;
    peer.addUser(attackerLogin, [account(`acc-${randomUUID()}`)]);
    const attacker = await linkedUser(attackerLogin);
    const res = await refused(
      sdk(attacker.jwt).postExchangeAccountTransfer({
        environmentId: t.environmentId, exchangeKey: KEY, accountId: victimAccount,
        createExchangeTransferRequest: { to: "0x3333333333333333333333333333333333333333", amount: 5, currency: "ETH" },
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "not_found" });
    expect(peer.requests.some((r) => r.path === `/v1/accounts/${victimAccount}/transfers`)).toBe(false);
  });

  it("passes the user's exchange 2FA code; without it the exchange's demand is a 403 exchange_mfa_required", async () => {
    const login = `dave-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "4", true)]);
    const user = await linkedUser(login);
    const body = { to: "0x4444444444444444444444444444444444444444", amount: 1, currency: "ETH" };
    const without = await refused(sdk(user.jwt).postExchangeAccountTransfer({ environmentId: t.environmentId, exchangeKey: KEY, accountId: id, createExchangeTransferRequest: body }));
    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({ code: "exchange_mfa_required" });
    const withCode = await sdk(user.jwt).postExchangeAccountTransfer({ environmentId: t.environmentId, exchangeKey: KEY, accountId: id, createExchangeTransferRequest: { ...body, mfaCode: TWO_FACTOR_CODE } });
    expect(withCode.status).toBe("completed");
  });

  it("refuses a non-positive amount (400) without calling the exchange", async () => {
    const login = `zero-${randomUUID()}`;
    peer.addUser(login, []);
    const user = await linkedUser(login);
    const before = peer.requests.length;
    const res = await refused(sdk(user.jwt).postExchangeAccountTransfer({ environmentId: t.environmentId, exchangeKey: KEY, accountId: "a", createExchangeTransferRequest: { to: "x", amount: -1, currency: "ETH" } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_amount" });
    expect(peer.requests.length).toBe(before);
  });

  it("answers the transfer destinations", async () => {
    const login = `erin-${randomUUID()}`;
    peer.addUser(login, []);
    const user = await linkedUser(login);
    const d = await sdk(user.jwt).getExchangeTransferDestinations({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(d).toEqual({ destinations: [{ address: "0x1111111111111111111111111111111111111111", tokens: ["ETH", "USDC"] }], enforcesAddressWhitelist: false });
  });

  it("a user who has not linked the exchange gets 422 exchange_not_linked; a revoked token 422 exchange_link_expired", async () => {
    const user = await signInAs(app, t.environmentId);
    for (const ask of [
      () => sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }),
      () => sdk(user.jwt).getExchangeTransactions({ environmentId: t.environmentId, exchangeKey: KEY }),
      () => sdk(user.jwt).getExchangeTransferDestinations({ environmentId: t.environmentId, exchangeKey: KEY }),
    ]) {
      const r = await refused(ask());
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: "exchange_not_linked" });
    }
    const login = `frank-${randomUUID()}`;
    peer.addUser(login, []);
    const linked = await linkedUser(login);
    peer.revokeTokens(login);
    const r = await refused(sdk(linked.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "exchange_link_expired" });
  });

  it("refreshes an expired token with the refresh token (rotated), and once the exchange refuses that, 422 exchange_link_expired", async () => {
    const login = `kim-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id)]);
    const user = await linkedUser(login);
    const expire = () => app.db.none("UPDATE exchange_account_links SET expires_at = now() - interval '1 minute' WHERE user_id = $1", [user.userId]);
    await expire();
    const before = peer.refreshes;
    const accounts = await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(accounts.map((a) => a.id)).toEqual([id]);
    expect(peer.refreshes).toBe(before + 1);
    const row = await app.db.one("SELECT expires_at FROM exchange_account_links WHERE user_id = $1", [user.userId]);
    expect(row.expires_at.getTime()).toBeGreaterThan(Date.now());
    // Fresh again: no second refresh.
    await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(peer.refreshes).toBe(before + 1);
    peer.revokeTokens(login);
    await expire();
    const r = await refused(sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "exchange_link_expired" });
  });

  it("an exchange that is down answers 503 exchange_unavailable with Retry-After, never made-up data", async () => {
    const login = `gina-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await linkedUser(login);
    peer.down = true;
    const r = await refused(sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }));
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: "exchange_unavailable" });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("an unknown exchange key is 404; a kind the environment has not connected, or disabled, is 422 not_configured", async () => {
    const user = await signInAs(app, t.environmentId);
    const unknown = await refused(sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: "nosuch" as ExchangeKeyEnum }));
    expect(unknown.status).toBe(404);
    const missing = await refused(sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: "custody" as ExchangeKeyEnum }));
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: "not_configured" });
    const { tenant: other, exchangeId: id } = await setup.connectedTenant();
    const off = await call(app.baseUrl, "PUT", `/settings/exchanges/${id}/disable`, { token: other.token });
    expect(off.status, off.text).toBe(200);
    const otherUser = await signInAs(app, other.environmentId);
    const disabled = await refused(sdk(otherUser.jwt).getUserAccounts({ environmentId: other.environmentId, exchangeKey: KEY }));
    expect(disabled.status).toBe(422);
    expect(disabled.body).toMatchObject({ code: "not_configured" });
  });

  it("another environment's session cannot reach this environment's exchange accounts, and its link does not carry over", async () => {
    const login = `henry-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await linkedUser(login);
    const { tenant: other } = await setup.connectedTenant();
    const cross = await refused(sdk(user.jwt).getUserAccounts({ environmentId: other.environmentId, exchangeKey: KEY }));
    expect(cross.status).toBe(401);
    const otherUser = await signInAs(app, other.environmentId, user.email);
    const notLinked = await refused(sdk(otherUser.jwt).getUserAccounts({ environmentId: other.environmentId, exchangeKey: KEY }));
    expect(notLinked.body).toMatchObject({ code: "exchange_not_linked" });
  });

  it("needs a session (401)", async () => {
    const r = await refused(sdk().getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY }));
    expect(r.status).toBe(401);
  });
});

describe("over gRPC", () => {
  it("answers the accounts and the same codes", async () => {
    const login = `ivy-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "7")]);
    const user = await linkedUser(login);
    const client = createClient(SdkExchangeAccountsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${user.jwt}` };
    const res = await client.getUserAccounts({ environmentId: t.environmentId, exchangeKey: "generic" }, { headers });
    expect(res.accounts.map((a) => a.id)).toEqual([id]);
    expect(res.accounts[0]!.balances[0]!.balance).toBe(7);
    const err = await client
      .postExchangeAccountTransfer({ environmentId: t.environmentId, exchangeKey: "generic", accountId: "not-mine", to: "0x5", amount: 1, currency: "ETH" }, { headers })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
  });
});

describe("on the record: linking and moving funds write audit rows, never a secret", () => {
  /** The exchange-account audit rows the user's own calls wrote, oldest first. */
  const auditOf = (userId: string) =>
    app.db.any("SELECT * FROM audit_log WHERE environment_id = $1 AND actor_user_id = $2 AND action LIKE 'exchange_account.%' ORDER BY created_at, id", [t.environmentId, userId]);

  /** The exchange's tokens of the user's link, opened: they must appear in no audit row. */
  async function tokensOf(userId: string) {
    const row = await app.db.one("SELECT * FROM exchange_account_links WHERE environment_id = $1 AND user_id = $2", [t.environmentId, userId]);
    const open = (sealed: string, which: string) => app.deps.sealer.open(sealed, `exchange-link:${row.exchange_id}:${userId}:${which}`);
    return { row, access: open(row.access_token_sealed, "access_token"), refresh: row.refresh_token_sealed ? open(row.refresh_token_sealed, "refresh_token") : null };
  }

  it("linking writes exchange_account.linked under the user, linking again exchange_account.relinked; a token refresh writes nothing; no token in any row", async () => {
    const login = `audit-link-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await linkedUser(login);
    const first = await tokensOf(user.userId);
    const linked = await auditOf(user.userId);
    expect(linked.map((r) => r.action)).toEqual(["exchange_account.linked"]);
    expect(linked[0]).toMatchObject({ resource_type: "exchange_account", resource_id: first.row.id, actor_user_id: user.userId, actor_member_id: null, actor_token_id: null });
    expect(linked[0].changes.after).toMatchObject({ id: first.row.id, userId: user.userId, exchangeId: first.row.exchange_id, exchange: "generic" });
    // Linking again (a new grant, possibly another login at the exchange) replaces the tokens: a change of its own.
    const back = await peer.authorize(await startLink(t.environmentId, user.jwt), login);
    await sdk().cbOauthRedirect({ environmentId: t.environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! });
    const second = await tokensOf(user.userId);
    // A refresh keeps the same link: housekeeping, not a change worth a row.
    await app.db.none("UPDATE exchange_account_links SET expires_at = now() - interval '1 minute' WHERE user_id = $1", [user.userId]);
    const refreshes = peer.refreshes;
    await sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(peer.refreshes).toBe(refreshes + 1);
    const third = await tokensOf(user.userId);
    const rows = await auditOf(user.userId);
    expect(rows.map((r) => r.action)).toEqual(["exchange_account.linked", "exchange_account.relinked"]);
    expect(rows[1]).toMatchObject({ resource_id: first.row.id, actor_user_id: user.userId });
    const text = JSON.stringify(rows);
    for (const secret of [first, second, third].flatMap((x) => [x.access, x.refresh, x.row.access_token_sealed, x.row.refresh_token_sealed]).filter(Boolean))
      expect(text).not.toContain(secret);
    expect(text).not.toContain(peer.apiSecret);
  });

  it("a transfer writes one exchange_account.transfer_requested per idempotency key, with what moved and without the 2FA code, tokens or the raw key", async () => {
    const login = `audit-move-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "5", true)]);
    const user = await linkedUser(login);
    const key = `client-key-${randomUUID()}`;
    const to = "0x5555555555555555555555555555555555555555";
    const request = {
      environmentId: t.environmentId, exchangeKey: KEY, accountId: id,
      createExchangeTransferRequest: { to, amount: 1.5, currency: "ETH", network: "base", id: key, mfaCode: TWO_FACTOR_CODE },
    };
    const first = await sdk(user.jwt).postExchangeAccountTransfer(request);
    const again = await sdk(user.jwt).postExchangeAccountTransfer(request);
    expect(again.id).toBe(first.id);
    const rows = (await auditOf(user.userId)).filter((r) => r.action === "exchange_account.transfer_requested");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ resource_type: "exchange_transfer", resource_id: first.id, actor_user_id: user.userId, actor_member_id: null });
    expect(rows[0].changes).toEqual({
      after: { exchange: "generic", exchangeId: expect.any(String), userId: user.userId, exchangeAccountId: id, to, amount: 1.5, currency: "ETH", network: "base", transferId: first.id, status: "completed" },
    });
    const { access, refresh } = await tokensOf(user.userId);
    const text = JSON.stringify(rows);
    const sentKey = peer.requests.filter((r) => r.path === `/v1/accounts/${id}/transfers`).at(-1)!.headers["idempotency-key"] as string;
    for (const secret of [access, refresh, TWO_FACTOR_CODE, key, sentKey, peer.apiSecret].filter(Boolean)) expect(text).not.toContain(secret);
    // Without a key every request is a transfer of its own, and a row of its own.
    const { id: _k, ...keyless } = request.createExchangeTransferRequest;
    const a = await sdk(user.jwt).postExchangeAccountTransfer({ ...request, createExchangeTransferRequest: keyless });
    const b = await sdk(user.jwt).postExchangeAccountTransfer({ ...request, createExchangeTransferRequest: keyless });
    const ids = (await auditOf(user.userId)).filter((r) => r.action === "exchange_account.transfer_requested").map((r) => r.resource_id);
    expect(ids).toEqual([first.id, a.id, b.id]);
  });

  it("concurrent retries of one idempotency key still write one row", async () => {
    const login = `audit-race-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "5")]);
    const user = await linkedUser(login);
    const request = { environmentId: t.environmentId, exchangeKey: KEY, accountId: id, createExchangeTransferRequest: { to: "0x6666666666666666666666666666666666666666", amount: 1, currency: "ETH", id: randomUUID() } };
    const done = await Promise.all([1, 2, 3, 4].map(() => sdk(user.jwt).postExchangeAccountTransfer(request)));
    expect(new Set(done.map((d) => d.id)).size).toBe(1);
    const rows = (await auditOf(user.userId)).filter((r) => r.action === "exchange_account.transfer_requested");
    expect(rows).toHaveLength(1);
  });

  it("a refused transfer writes no row: bad amount, another's account, the exchange's 2FA demand, the exchange's own refusal", async () => {
    const login = `audit-refused-${randomUUID()}`;
    const id = `acc-${randomUUID()}`;
    const guarded = `acc-${randomUUID()}`;
    peer.addUser(login, [account(id, "1"), account(guarded, "1", true)]);
    const user = await linkedUser(login);
    const send = (accountId: string, body: Record<string, unknown>) =>
      refused(sdk(user.jwt).postExchangeAccountTransfer({ environmentId: t.environmentId, exchangeKey: KEY, accountId, createExchangeTransferRequest: { to: "0x7777777777777777777777777777777777777777", currency: "ETH", amount: 1, ...body } as never }));
    expect((await send(id, { amount: 0 })).body).toMatchObject({ code: "invalid_amount" });
    expect((await send(`acc-${randomUUID()}`, {})).body).toMatchObject({ code: "not_found" });
    expect((await send(guarded, {})).body).toMatchObject({ code: "exchange_mfa_required" });
    expect((await send(id, { amount: 50 })).body).toMatchObject({ code: "exchange_rejected", payload: { exchangeCode: "insufficient_funds" } });
    expect((await auditOf(user.userId)).map((r) => r.action)).toEqual(["exchange_account.linked"]);
  });
});

describe("on the record: an on-ramp order", () => {
  it("an order (not a quote) writes exchange_onramp_order.created under the user, without its payment link", async () => {
    const { tenant: other } = await setup.connectedTenant({ onRampProvider: "commerce" });
    const user = await signInAs(app, other.environmentId);
    const order = {
      agreementAcceptedAt: new Date(), destinationAddress: "0x8888888888888888888888888888888888888888", destinationNetwork: "base",
      partnerUserRef: "ref-1", paymentAmount: "100.00", paymentCurrency: "USD", paymentMethod: CoinbaseOnrampOrderPaymentMethod.GuestCheckoutApplePay, purchaseCurrency: "ETH",
    };
    await sdk(user.jwt).createCoinbaseOnrampOrder({ environmentId: other.environmentId, coinbaseOnrampOrderCreateRequest: { ...order, isQuote: true } });
    const r = await sdk(user.jwt).createCoinbaseOnrampOrder({ environmentId: other.environmentId, coinbaseOnrampOrderCreateRequest: order });
    const rows = await app.db.any("SELECT * FROM audit_log WHERE environment_id = $1 AND actor_user_id = $2 AND action LIKE 'exchange_%'", [other.environmentId, user.userId]);
    expect(rows.map((x) => x.action)).toEqual(["exchange_onramp_order.created"]);
    expect(rows[0]).toMatchObject({ resource_type: "exchange_onramp_order", resource_id: r.order.orderId });
    expect(rows[0].changes.after).toMatchObject({
      exchange: "generic", userId: user.userId, orderId: r.order.orderId, destinationAddress: order.destinationAddress, destinationNetwork: "base",
      paymentTotal: "101.50", paymentCurrency: "USD", purchaseAmount: "0.04", purchaseCurrency: "ETH", status: "ONRAMP_ORDER_STATUS_PENDING_PAYMENT",
    });
    expect(JSON.stringify(rows)).not.toContain(r.paymentLink!.url);
  });
});

describe("the OAuth redirect, with an attacker's eye", () => {
  it("sends the browser only to an allowed origin: look-alikes, userinfo tricks, scheme downgrades and protocol-relative URLs are refused at the start", async () => {
    const host = `shop-${randomUUID().slice(0, 8)}.example`;
    const added = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin: `https://${host}` } });
    expect(added.status, added.text).toBeLessThan(300);
    const user = await signInAs(app, t.environmentId);
    for (const redirectUrl of [
      "https://evil.example/x",
      `https://${host}.evil.example/`,
      `https://${host}@evil.example/`,
      `https://evil.example/${host}`,
      `https://evil.example/?next=https://${host}/`,
      `http://${host}/`,
      `//evil.example/`,
      "javascript:alert(document.cookie)",
      `data:text/html,<script>location='https://evil.example'</script>`,
    ]) {
      const res = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/exchange/generic/link`, { token: user.jwt, body: { redirectUrl } });
      expect(res.status, redirectUrl).toBe(422);
      expect(res.body, redirectUrl).toMatchObject({ code: "redirect_url_not_allowed", payload: { field: "redirectUrl" } });
    }
    // The redirect's own query names no target: where the browser goes was fixed when the link started.
    const login = `redirect-q-${randomUUID()}`;
    peer.addUser(login, []);
    const back = await peer.authorize(await startLink(t.environmentId, user.jwt), login);
    const res = await fetch(
      `${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl${back.search}&redirectUrl=${encodeURIComponent("https://evil.example/")}&redirect_uri=${encodeURIComponent("https://evil.example/")}`,
      { redirect: "manual" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).not.toContain("evil.example");
  });

  it("a link started by a session that was then signed out cannot be completed: the code is not redeemed and nothing is linked", async () => {
    const origin = `https://app-${randomUUID().slice(0, 8)}.example`;
    const added = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/origins`, { token: t.token, body: { origin } });
    expect(added.status, added.text).toBeLessThan(300);
    const login = `signed-out-${randomUUID()}`;
    peer.addUser(login, [account(`acc-${randomUUID()}`)]);
    const user = await signInAs(app, t.environmentId);
    const plain = await startLink(t.environmentId, user.jwt);
    const withPage = await startLink(t.environmentId, user.jwt, { redirectUrl: `${origin}/done` });
    await sdkFor(app.baseUrl, user.jwt).revokeSession({ environmentId: t.environmentId });
    const redeemed = () => peer.requests.filter((r) => r.path === "/oauth/token").length;
    const before = redeemed();
    const back = await peer.authorize(plain, login);
    const r = await refused(sdk().cbOauthRedirect({ environmentId: t.environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "exchange_link_failed", payload: { error: "session_ended" } });
    const backWithPage = await peer.authorize(withPage, login);
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/exchangeOauthRedirectUrl${backWithPage.search}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${origin}/done?exchangeLink=failed&error=session_ended`);
    expect(redeemed()).toBe(before);
    expect(await app.db.any("SELECT 1 FROM exchange_account_links WHERE user_id = $1", [user.userId])).toEqual([]);
    expect(await app.db.any("SELECT 1 FROM audit_log WHERE actor_user_id = $1 AND action LIKE 'exchange_account.%'", [user.userId])).toEqual([]);
  });
});
