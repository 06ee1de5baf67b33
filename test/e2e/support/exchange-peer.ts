import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An exchange speaking Sigil's vendor-neutral exchange protocol (proto/sigil/exchange_accounts/v0), on
 * loopback. It CHECKS what Sigil signs and sends: every /v1 call's HMAC signature, key, passphrase and
 * timestamp; the user's bearer token; the OAuth authorization request (client id, redirect URI, S256 PKCE
 * challenge, state) and the code redemption (client authentication, redirect URI, the verifier against the
 * code's challenge). What it refuses it answers as an exchange would and records in `violations`, so a test
 * can also assert that Sigil never sent anything wrong.
 */

export interface PeerAccount {
  id: string;
  type: string;
  name: string;
  chain: string;
  balances: { currency: string; balance: string; available: string }[];
  /** Transfers out of this account need the user's exchange 2FA code (TWO_FACTOR_CODE). */
  requires2fa?: boolean;
}

interface PeerUser {
  accounts: PeerAccount[];
  destinations: { address: string; tokens: string[] }[];
}

export const TWO_FACTOR_CODE = "246810";

export interface ExchangePeer {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  passphrase: string;
  /** Exchange users by login name; add accounts to them freely. */
  users: Map<string, PeerUser>;
  addUser(login: string, accounts: PeerAccount[]): PeerUser;
  /** Every request Sigil made, in order. */
  requests: { method: string; path: string; headers: IncomingMessage["headers"]; body: string }[];
  /** What the peer refused because Sigil (or a test posing as an attacker) sent it wrong. */
  violations: string[];
  /** Transfers made, by idempotency key. */
  transfers: Map<string, { id: string; accountId: string; amount: string; currency: string; to: string; login: string }>;
  /** Answer 503 with Retry-After to everything. */
  down: boolean;
  /** Never answer (a hung exchange). */
  hang: boolean;
  /** Answer /v1/networks with this many bytes of JSON. */
  hugeNetworks: number;
  /** The user signs in at the authorization URL: answers the redirect URL the exchange sends the browser to. */
  authorize(authorizationUrl: string, login: string): Promise<URL>;
  /** Whether a buy URL's signature is the HMAC of its canonical query under the secret, and its parameters. */
  verifyBuyUrl(url: string): { ok: boolean; params: URLSearchParams };
  /** Refresh grants redeemed. */
  refreshes: number;
  /** Refresh answers carry no new refresh token (the one used stays good), as some exchanges answer. */
  keepsRefreshTokens: boolean;
  /** Revokes every token of a login, refresh tokens too (the exchange no longer accepts them). */
  revokeTokens(login: string): void;
  close(): Promise<void>;
}

const b64url = (b: Buffer) => b.toString("base64url");

export async function startExchangePeer(): Promise<ExchangePeer> {
  const apiKey = `key_${randomBytes(6).toString("hex")}`;
  const apiSecret = randomBytes(24).toString("base64");
  const passphrase = `pass-${randomBytes(4).toString("hex")}`;
  const codes = new Map<string, { login: string; challenge: string; redirectUri: string; used: boolean }>();
  const tokens = new Map<string, string>();
  const transactions: { login: string; accountId: string; id: string; hash: string; status: string; amount: string; currency: string; createdAt: string }[] = [];

  const refreshTokens = new Map<string, string>();
  const issueTokens = (login: string) => {
    const accessToken = `at_${randomBytes(16).toString("hex")}`;
    const refreshToken = `rt_${randomBytes(16).toString("hex")}`;
    tokens.set(accessToken, login);
    refreshTokens.set(refreshToken, login);
    return { access_token: accessToken, token_type: "Bearer", expires_in: 3600, refresh_token: refreshToken };
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: string, violation?: string) => {
    if (violation) peer.violations.push(violation);
    send(res, status, { code, message: code });
  };

  /** The request signature of the protocol: base64 HMAC-SHA256(secret, timestamp + METHOD + path?query + body). */
  function signatureOk(req: IncomingMessage, body: string): string | null {
    const h = req.headers;
    if (h["x-sigil-key"] !== apiKey) return "wrong or missing X-Sigil-Key";
    if (h["x-sigil-passphrase"] !== passphrase) return "wrong or missing X-Sigil-Passphrase";
    const ts = Number(h["x-sigil-timestamp"]);
    if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 30) return "stale or missing X-Sigil-Timestamp";
    const expected = createHmac("sha256", apiSecret).update(`${ts}${req.method}${req.url}${body}`).digest();
    const given = Buffer.from(String(h["x-sigil-signature"] ?? ""), "base64");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad X-Sigil-Signature";
    return null;
  }

  function userOf(req: IncomingMessage): string | null {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    return m ? (tokens.get(m[1]!) ?? null) : null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    peer.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
    if (peer.down) return send(res, 503, { code: "maintenance" }, { "retry-after": "7" });
    if (peer.hang) return;
    const url = new URL(req.url!, "http://peer");

    if (req.method === "GET" && url.pathname === "/oauth/authorize") {
      const q = url.searchParams;
      if (q.get("response_type") !== "code") return refuse(res, 400, "unsupported_response_type", "authorize: response_type is not code");
      if (q.get("client_id") !== apiKey) return refuse(res, 400, "invalid_client", "authorize: wrong client_id");
      if (!q.get("state")) return refuse(res, 400, "invalid_request", "authorize: no state");
      if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) return refuse(res, 400, "invalid_request", "authorize: no S256 PKCE challenge");
      const login = q.get("login") ?? "";
      if (!peer.users.has(login)) return refuse(res, 400, "access_denied");
      const code = b64url(randomBytes(16));
      codes.set(code, { login, challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")!, used: false });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }

    if (req.method === "POST" && url.pathname === "/oauth/token") {
      const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
      if (basic !== `${encodeURIComponent(apiKey)}:${encodeURIComponent(apiSecret)}`) return refuse(res, 401, "invalid_client", "token: bad client authentication");
      const form = new URLSearchParams(body);
      if (form.get("grant_type") === "refresh_token") {
        const login = refreshTokens.get(form.get("refresh_token") ?? "");
        if (!login) return refuse(res, 400, "invalid_grant");
        if (peer.keepsRefreshTokens) {
          peer.refreshes++;
          const { refresh_token: _kept, ...answer } = issueTokens(login);
          return send(res, 200, answer);
        }
        // Rotated: a refresh token is good once.
        refreshTokens.delete(form.get("refresh_token")!);
        peer.refreshes++;
        return send(res, 200, issueTokens(login));
      }
      if (form.get("grant_type") !== "authorization_code") return refuse(res, 400, "unsupported_grant_type");
      const grant = codes.get(form.get("code") ?? "");
      if (!grant || grant.used) return refuse(res, 400, "invalid_grant");
      grant.used = true;
      if (form.get("redirect_uri") !== grant.redirectUri) return refuse(res, 400, "invalid_grant", "token: redirect_uri differs from the authorization's");
      const verifier = form.get("code_verifier");
      if (!verifier) return refuse(res, 400, "invalid_request", "token: no PKCE code_verifier");
      if (b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge) return refuse(res, 400, "invalid_grant");
      return send(res, 200, issueTokens(grant.login));
    }

    if (!url.pathname.startsWith("/v1/")) return refuse(res, 404, "not_found");
    const bad = signatureOk(req, body);
    if (bad) return refuse(res, 401, "invalid_signature", `${req.method} ${url.pathname}: ${bad}`);

    if (req.method === "GET" && url.pathname === "/v1/networks")
      return send(res, 200, { networks: peer.hugeNetworks ? ["x".repeat(peer.hugeNetworks)] : ["ethereum", "base", "solana"] });
    if (req.method === "POST" && url.pathname === "/v1/orders") {
      const o = JSON.parse(body) as Record<string, string | boolean>;
      const now = new Date().toISOString();
      return send(res, 201, {
        order: {
          order_id: randomUUID(), payment_total: "101.50", payment_subtotal: "100.00", payment_currency: o.payment_currency, payment_method: o.payment_method,
          purchase_amount: "0.04", purchase_currency: o.purchase_currency, fees: [{ type: "FEE_TYPE_NETWORK", amount: "1.50", currency: o.payment_currency }],
          exchange_rate: "2500", destination_address: o.destination_address, destination_network: o.destination_network,
          status: "ONRAMP_ORDER_STATUS_PENDING_PAYMENT", created_at: now, updated_at: now, partner_user_ref: o.partner_user_ref,
        },
        payment_link: o.is_quote ? null : { url: `${peer.baseUrl}/pay/${randomUUID()}`, payment_link_type: "PAYMENT_LINK_TYPE_APPLE_PAY_BUTTON" },
      });
    }

    const login = userOf(req);
    if (!login) return refuse(res, 401, "invalid_token");
    const user = peer.users.get(login)!;
    if (req.method === "GET" && url.pathname === "/v1/accounts") return send(res, 200, { accounts: user.accounts.map(({ requires2fa, ...a }) => a) });
    if (req.method === "GET" && url.pathname === "/v1/transfer-destinations")
      return send(res, 200, { destinations: user.destinations, enforces_address_whitelist: false });
    if (req.method === "GET" && url.pathname === "/v1/transactions") {
      const accountId = url.searchParams.get("account_id");
      return send(res, 200, {
        transactions: transactions
          .filter((t) => t.login === login && (!accountId || t.accountId === accountId))
          .map(({ login: _l, accountId: _a, createdAt, ...t }) => ({ ...t, created_at: createdAt })),
      });
    }
    const transfer = /^\/v1\/accounts\/([^/]+)\/transfers$/.exec(url.pathname);
    if (req.method === "POST" && transfer) {
      const account = user.accounts.find((a) => a.id === decodeURIComponent(transfer[1]!));
      if (!account) return refuse(res, 404, "account_not_found", `transfer from ${transfer[1]} which is not ${login}'s`);
      const key = req.headers["idempotency-key"];
      if (typeof key !== "string" || !key) return refuse(res, 400, "idempotency_key_required", "transfer without Idempotency-Key");
      const t = JSON.parse(body) as { to: string; amount: string; currency: string };
      if (account.requires2fa && req.headers["x-exchange-2fa"] !== TWO_FACTOR_CODE) return refuse(res, 403, "two_factor_required");
      let done = peer.transfers.get(key);
      if (!done) {
        const held = account.balances.find((b) => b.currency === t.currency);
        if (!held || Number(held.available) < Number(t.amount)) return refuse(res, 422, "insufficient_funds");
        held.balance = String(Number(held.balance) - Number(t.amount));
        held.available = String(Number(held.available) - Number(t.amount));
        done = { id: randomUUID(), accountId: account.id, amount: t.amount, currency: t.currency, to: t.to, login };
        peer.transfers.set(key, done);
        transactions.push({ login, accountId: account.id, id: done.id, hash: `0x${randomBytes(32).toString("hex")}`, status: "completed", amount: t.amount, currency: t.currency, createdAt: new Date().toISOString() });
      }
      return send(res, 201, { id: done.id, account_id: done.accountId, status: "completed", amount: done.amount, currency: done.currency, created_at: new Date().toISOString() });
    }
    return refuse(res, 404, "not_found");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { code: "peer_error", message: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const peer: ExchangePeer = {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    apiSecret,
    passphrase,
    users: new Map(),
    requests: [],
    violations: [],
    transfers: new Map(),
    down: false,
    hang: false,
    hugeNetworks: 0,
    refreshes: 0,
    keepsRefreshTokens: false,
    addUser(login, accounts) {
      const user = { accounts, destinations: [{ address: "0x1111111111111111111111111111111111111111", tokens: ["ETH", "USDC"] }] };
      peer.users.set(login, user);
      return user;
    },
    async authorize(authorizationUrl, login) {
      const u = new URL(authorizationUrl);
      u.searchParams.set("login", login);
      const res = await fetch(u, { redirect: "manual" });
      if (res.status !== 302) throw new Error(`the exchange refused the authorization: ${res.status} ${await res.text()}`);
      return new URL(res.headers.get("location")!);
    },
    verifyBuyUrl(url) {
      const params = new URL(url).searchParams;
      const signature = params.get("signature") ?? "";
      const rest = [...params.entries()].filter(([k]) => k !== "signature").sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const canonical = rest.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
      const expected = createHmac("sha256", apiSecret).update(canonical).digest("hex");
      const fresh = Math.abs(Date.now() / 1000 - Number(params.get("timestamp"))) <= 30;
      return { ok: fresh && params.get("key") === apiKey && signature === expected, params };
    },
    revokeTokens(login) {
      for (const [t, l] of tokens) if (l === login) tokens.delete(t);
      for (const [t, l] of refreshTokens) if (l === login) refreshTokens.delete(t);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return peer;
}
