import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A plain OAuth 2 authorization server on loopback (no OpenID Connect: no ID token, no discovery), shaped
 * like the well-known social ones: /authorize shows a consent form whose Approve redirects with a code, /token redeems a code
 * once with PKCE S256 and the client secret, /user answers the account as JSON ({id, login, name, email}).
 */
export interface OAuth2Peer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorizations approve. */
  account: { id: number; login: string; name: string; email: string };
  close(): Promise<void>;
}

export async function startOAuth2Peer(opts: { redirectUri: string }): Promise<OAuth2Peer> {
  const codes = new Map<string, { challenge: string; redirectUri: string; account: OAuth2Peer["account"] }>();
  const tokens = new Map<string, OAuth2Peer["account"]>();
  const peer: OAuth2Peer = {
    url: "",
    clientId: "plain-client",
    clientSecret: "plain-secret-0123456789",
    account: { id: 4242, login: "octo", name: "Octo Cat", email: "octo@example.test" },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const json = (res: import("node:http").ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, peer.url);
    if (url.pathname === "/authorize" && req.method === "GET") {
      // The consent page: a person presses Approve (the form posts the same query back).
      res.writeHead(200, { "content-type": "text/html" });
      const hidden = [...url.searchParams].map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">`).join("");
      return res.end(`<!doctype html><form method="post" action="/authorize">${hidden}<button>Approve</button></form>`);
    }
    if (url.pathname === "/authorize") {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const q = new URLSearchParams(raw);
      if (q.get("client_id") !== peer.clientId || q.get("redirect_uri") !== opts.redirectUri || q.get("code_challenge_method") !== "S256")
        return json(res, 400, { error: "invalid_request" });
      const code = randomBytes(16).toString("hex");
      codes.set(code, { challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")!, account: { ...peer.account } });
      const back = new URL(opts.redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const f = new URLSearchParams(raw);
      const grant = codes.get(f.get("code") ?? "");
      codes.delete(f.get("code") ?? "");
      const verifier = f.get("code_verifier") ?? "";
      if (f.get("client_id") !== peer.clientId || f.get("client_secret") !== peer.clientSecret) return json(res, 401, { error: "invalid_client" });
      if (!grant || grant.redirectUri !== f.get("redirect_uri") || createHash("sha256").update(verifier).digest("base64url") !== grant.challenge)
        return json(res, 400, { error: "invalid_grant" });
      const token = randomBytes(16).toString("hex");
      tokens.set(token, grant.account);
      return json(res, 200, { access_token: token, token_type: "bearer", expires_in: 3600, scope: "read:user" });
    }
    if (url.pathname === "/user") {
      const account = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /i, ""));
      if (!account) return json(res, 401, { message: "Bad credentials" });
      return json(res, 200, { ...account, avatar_url: `https://example.test/${account.login}.png` });
    }
    json(res, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on("connection", (s) => s.unref());
  return peer;
}
