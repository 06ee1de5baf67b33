import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import Provider from "oidc-provider";

/**
 * A real OpenID Provider (oidc-provider, certified) on loopback for the OAuth tests, the guide's local
 * provider (docs/guide/oauth-oidc.md) and the bench: one client registered for the given redirect URIs, any login accepted by its
 * built-in login and consent pages (devInteractions), accounts whose claims derive from the login.
 * `tamper` rewrites the next ID tokens the token endpoint answers, re-signed with the provider's own key:
 * the wrong audience, an expired token, another nonce, or a broken signature (the attacks the relying
 * party must refuse).
 */
export type Tamper = "audience" | "expired" | "nonce" | "signature" | null;

export interface OidcPeer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  tamper: Tamper;
  /** Token endpoint answers so far. */
  tokenCalls: number;
  close(): Promise<void>;
}

export async function startOidcPeer(opts: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  port?: number;
  host?: string;
  /** false: discovery does not announce RFC 9207's iss parameter (as issuers that predate it). */
  issParameter?: boolean;
}): Promise<OidcPeer> {
  // The server listens first (the issuer names its port) and gets the provider after: a request in between (a
  // readiness probe of `npm run dev:oidc`) is answered 503 instead of hanging with no listener.
  let handle: RequestListener = (_req, res) => void res.writeHead(503, { "retry-after": "1" }).end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "peer-key", alg: "RS256", use: "sig" };
  const clientId = opts.clientId ?? "sigil-test-client";
  const clientSecret = opts.clientSecret ?? "sigil-test-secret-0123456789abcdef";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["oidc-peer-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username", "picture"] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: `${id}@example.test`, email_verified: true, name: `Test ${id}`, preferred_username: id, picture: `https://example.test/${id}.png` };
        },
      };
    },
  });
  const peer: OidcPeer = {
    issuer,
    clientId,
    clientSecret,
    tamper: null,
    tokenCalls: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  provider.use(async (ctx, next) => {
    await next();
    if (opts.issParameter === false && ctx.path === "/.well-known/openid-configuration")
      ctx.body = { ...(ctx.body as object), authorization_response_iss_parameter_supported: false };
    if (ctx.path !== "/token" || ctx.method !== "POST") return;
    peer.tokenCalls++;
    const body = ctx.body as { id_token?: string } | undefined;
    if (!peer.tamper || !body?.id_token) return;
    const claims = decodeJwt(body.id_token);
    const now = Math.floor(Date.now() / 1000);
    if (peer.tamper === "audience") claims.aud = "another-client";
    if (peer.tamper === "expired") Object.assign(claims, { iat: now - 7200, exp: now - 3600 });
    if (peer.tamper === "nonce") claims.nonce = "not-the-nonce";
    let token = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: jwk.kid }).sign(privateKey);
    if (peer.tamper === "signature") token = token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");
    ctx.body = { ...body, id_token: token };
  });
  handle = provider.callback();
  server.on("connection", (s) => s.unref());
  return peer;
}
