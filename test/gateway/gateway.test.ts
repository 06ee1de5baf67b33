import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawRequest, startGatewayServer, type GatewayServer } from "./fixtures.js";

let server: GatewayServer;
beforeAll(async () => {
  server = await startGatewayServer(1024);
});
afterAll(() => server.close());
beforeEach(() => {
  server.seen.length = 0;
  server.internalErrors.length = 0;
});

const call = (path: string, init?: RequestInit) => fetch(server.url + path, init);
const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
const only = (method: string) => {
  const calls = server.seen.filter((s) => s.method === method);
  expect(calls).toHaveLength(1);
  return calls[0];
};

describe("routing and request building", () => {
  it("binds path variables and lets them win over body fields of the same name", async () => {
    const res = await postJson("/api/v0/environments/env-1/tokens", JSON.stringify({ note: "ci", environmentId: "evil" }), {
      authorization: "Bearer dyn_abc",
      "user-agent": "gateway-test",
      "x-request-id": "req-42-gateway",
      "sigil-client-ip": "6.6.6.6",
      "x-not-forwarded": "1",
    });
    expect(res.status).toBe(201);
    const { request, headers } = only("CreateToken");
    expect(request).toMatchObject({ environmentId: "env-1", note: "ci" });
    expect(headers.get("authorization")).toBe("Bearer dyn_abc");
    expect(headers.get("user-agent")).toContain("gateway-test");
    expect(headers.get("sigil-client-ip")).toBe("127.0.0.1");
    expect(headers.get("x-not-forwarded")).toBeNull();
    // The interceptor chain ran and its response header reached the REST client.
    expect(res.headers.get("x-request-id")).toBe("req-42-gateway");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({
      token: {
        id: "tok-1",
        rawToken: "dyn_secret",
        note: "ci",
        active: true,
        projectEnvironmentId: "env-1",
        createdAt: "2024-05-01T12:00:00Z",
        permissions: [],
      },
    });
  });

  it("serves additional_bindings and unwraps response_body", async () => {
    const short = await call("/api/v0/wallets/w-9");
    const long = await call("/api/v0/environments/env-2/wallets/w-9");
    expect(short.status).toBe(200);
    expect(long.status).toBe(200);
    const calls = server.seen.filter((s) => s.method === "GetWallet").map((s) => s.request);
    expect(calls).toMatchObject([
      { environmentId: "", walletId: "w-9" },
      { environmentId: "env-2", walletId: "w-9" },
    ]);
    const wallet = await long.json();
    // The wallet itself, not { wallet: ... }; nullable timestamp -> null; nested false kept, "" dropped.
    expect(wallet).toEqual({
      id: "w-9",
      chain: "EVM",
      lastSelectedAt: null,
      properties: {
        custodyHDWalletId: "hd-1",
        isAuthenticatorAttached: false,
        isSessionKeyCompatible: false,
      },
    });
    expect(await short.json()).toEqual(wallet);
  });

  it("unwraps a repeated response_body into a JSON array", async () => {
    const res = await call("/api/v0/environments/env-1/allowlists");
    expect(res.status).toBe(200);
    // Items get the same presentation as whole messages: unset nullable timestamps are null, the count is gone.
    expect(await res.json()).toEqual([
      { id: "a-1", name: "VIPs", outcome: "siteAccess", enabledAt: "2024-05-01T12:00:00Z" },
      { id: "a-2", name: "Blocked", outcome: "block", enabledAt: null },
    ]);
  });

  it("reads query parameters by JSON or proto name, but never over a path variable", async () => {
    const a = await call("/api/v0/sdk/env-3/providers/oidc/authorizeHtml?redirectUri=https%3A%2F%2Fapp.example%2Fcb");
    const b = await call("/api/v0/sdk/env-3/providers/oidc/authorizeHtml?redirect_uri=https://b.example&providerType=partner");
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const calls = server.seen.filter((s) => s.method === "OauthAuthorizeHtml").map((s) => s.request);
    expect(calls).toMatchObject([
      { environmentId: "env-3", providerType: "oidc", redirectUri: "https://app.example/cb" },
      { environmentId: "env-3", providerType: "oidc", redirectUri: "https://b.example" },
    ]);
  });

  it("prefers the more literal template and decodes percent-encoded variables", async () => {
    const res = await call("/api/v0/environments/env%201/tokens/tok%2F2", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(only("DeleteToken").request).toMatchObject({ environmentId: "env 1", tokenId: "tok/2" });
  });
});

describe("success responses", () => {
  it("answers 204 with no body at all", async () => {
    const res = await call("/api/v0/environments/env-1/tokens/tok-1", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(res.headers.get("content-type")).toBeNull();
    expect(await res.text()).toBe("");
  });

  it("keeps false and 0 and [] but omits empty strings and unset plain messages", async () => {
    const list = await call("/api/v0/environments/env-1/tokens");
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ tokens: [{ id: "tok-1", active: false, permissions: [] }], count: 1 });

    const res = await call("/api/v0/settings/providers/p-1/disable", { method: "PUT" });
    expect(res.status).toBe(200);
    const provider = await res.json();
    expect(provider).toMatchObject({ id: "p-1", provider: "oidc", enabledAt: null, createNewAccounts: false, defaultChainId: 0 });
    expect(provider.enabledCountries).toEqual([]);
    expect(provider).not.toHaveProperty("clientId");
    expect(provider).not.toHaveProperty("termsAcceptedByUser");
    expect(provider.enableEIP7702).toBe(false);
  });

  it("does not reshape google.protobuf.Struct contents", async () => {
    const res = await postJson("/api/v0/environments/env-1/wallets/recover", JSON.stringify({ userId: "u-1" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { blank: "", nested: { also: "" } } });
  });

  it("writes google.api.HttpBody as raw bytes with its content type", async () => {
    const res = await call("/api/v0/sdk/env-3/providers/oidc/authorizeHtml?redirectUri=https://x.example");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toBe("<!doctype html><p>oidc -> https://x.example</p>");
  });
});

describe("bad input never reaches the handler", () => {
  it("rejects malformed JSON with 400 malformed_json", async () => {
    const res = await postJson("/api/v0/environments/env-1/tokens", '{"note": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "malformed_json" });
    expect(server.seen).toHaveLength(0);
  });

  it("rejects a wrong field type with 400 naming the field", async () => {
    const res = await postJson("/api/v0/environments/env-1/tokens", JSON.stringify({ note: 123 }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("invalid_request_body");
    expect(body.error).toContain('"note"');
    expect(body.payload).toEqual({ field: "note" });
    expect(server.seen).toHaveLength(0);
  });

  it("rejects a body that is not a JSON object", async () => {
    const res = await postJson("/api/v0/environments/env-1/tokens", "[1,2]");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_request_body" });
    expect(server.seen).toHaveLength(0);
  });

  it("rejects a non-JSON content type with 415", async () => {
    const res = await call("/api/v0/environments/env-1/tokens", { method: "POST", body: "note=x", headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(415);
    expect(server.seen).toHaveLength(0);
  });

  it("answers 413 from Content-Length without reading the body", async () => {
    const res = await postJson("/api/v0/environments/env-1/tokens", JSON.stringify({ note: "x".repeat(2000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "payload_too_large" });
    expect(server.seen).toHaveLength(0);
  });

  it("answers 413 while streaming a chunked body that has no Content-Length", async () => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(512, 0x20));
    const res = await rawRequest(server.port, {
      method: "POST",
      path: "/api/v0/environments/env-1/tokens",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "payload_too_large" });
    expect(server.seen).toHaveLength(0);
  });

  it("treats an empty body as an empty message", async () => {
    const res = await call("/api/v0/environments/env-1/tokens", { method: "POST" });
    expect(res.status).toBe(201);
    expect(only("CreateToken").request).toMatchObject({ environmentId: "env-1", note: "" });
  });
});

describe("unknown routes", () => {
  it("answers 404 for an unknown path", async () => {
    const res = await call("/api/v0/nothing/here");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "no route for GET /api/v0/nothing/here", code: "not_found" });
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const res = await call("/api/v0/environments/env-1/tokens", { method: "PATCH" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(await res.json()).toMatchObject({ code: "method_not_allowed" });
  });
});

describe("errors from handlers", () => {
  it("maps domain error metadata to status, body and Retry-After", async () => {
    const res = await call("/api/v0/environments/rate-limited/tokens", { headers: { "x-request-id": "rl-1" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toEqual({ error: "slow down", code: "rate_limited" });

    const missing = await call("/api/v0/environments/missing/tokens");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "environment not found", code: "not_found" });
  });

  it("carries the error payload", async () => {
    const res = await call("/api/v0/settings/providers/p-1");
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: "provider is misconfigured",
      code: "provider_misconfigured",
      payload: { fields: ["clientId"] },
    });
  });

  it("maps a plain Connect code when there is no domain metadata", async () => {
    const res = await call("/api/v0/environments/forbidden/tokens");
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "token lacks tokens.read", code: "permission_denied" });
  });

  it("answers 500 without leaking an unexpected error's message", async () => {
    for (const env of ["boom", "internal-connect"]) {
      const res = await call(`/api/v0/environments/${env}/tokens`);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: "internal error", code: "internal" });
      expect(text).not.toContain("hunter2");
    }
    expect(server.internalErrors).toHaveLength(2);
  });
});
