import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/**
 * Attacker-style input: what a hostile or broken client sends to write routes (issue 10, "Tokens and
 * input"). Every refusal is the spec's error body and changes nothing.
 */

let app: TestApp;
let t: BootstrapResult;
beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `hardening-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const api = (method: string, path: string, body?: unknown, token = t.token) => call(app.baseUrl, method, path, { token, body });
const userCount = async () => (await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [t.environmentId])).n as number;

describe("token permissions", () => {
  it("refuses an empty permissions list with 400 validation_error instead of granting everything; nothing is stored", async () => {
    const before = (await api("GET", `/environments/${t.environmentId}/tokens`)).body.count;
    const res = await api("POST", `/environments/${t.environmentId}/tokens`, { note: "empty", permissions: [] });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_error", error: expect.any(String) });
    expect(res.body.payload.errors).toContainEqual({ field: "permissions", message: expect.stringContaining("at least 1") });
    const member = await api("POST", "/user/tokens", { note: "empty", permissions: [] }, t.memberToken);
    expect(member.status, member.text).toBe(400);
    expect((await api("GET", `/environments/${t.environmentId}/tokens`)).body.count).toBe(before);
  });

  it("still grants what was listed, and everything the caller has when the field is absent", async () => {
    const some = await api("POST", `/environments/${t.environmentId}/tokens`, { note: "some", permissions: ["users.read"] });
    expect(some.status, some.text).toBe(201);
    expect(some.body.token.permissions).toEqual(["users.read"]);
    const all = await api("POST", `/environments/${t.environmentId}/tokens`, { note: "all" });
    expect(all.status, all.text).toBe(201);
    expect(all.body.token.permissions.length).toBeGreaterThan(10);
  });

  it("refuses non-string items", async () => {
    const res = await api("POST", `/environments/${t.environmentId}/tokens`, { permissions: ["users.read", 7] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.payload.errors).toContainEqual({ field: "permissions[1]", message: expect.any(String) });
  });
});

describe("text the store cannot keep (NUL, unpaired surrogates)", () => {
  const bad = ["a\u0000b", "\u0000", "x\uD800y", "\uDC00"];

  it("answers 400 validation_error naming the field, for top-level strings on many write routes; nothing stored", async () => {
    const n = await userCount();
    for (const s of bad) {
      const cases: [string, string, unknown, string][] = [
        ["POST", `/environments/${t.environmentId}/users`, { email: `u-${randomUUID()}@example.com`, alias: s }, "alias"],
        ["POST", `/environments/${t.environmentId}/tokens`, { note: s }, "note"],
        ["PUT", `/organizations/${t.organizationId}`, { name: s }, "name"],
        ["POST", `/environments/${t.environmentId}/custom/fields`, { name: `f${s}`, label: "L" }, "name"],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await api(method, path, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
        // protobuf-es itself refuses an unpaired surrogate in a string field while reading the JSON.
        if (res.body.code === "invalid_request_body") expect(res.body.payload).toEqual({ field });
        else {
          expect(res.body.code).toBe("validation_error");
          expect(res.body.payload.errors).toContainEqual({ field, message: expect.stringContaining("NUL") });
        }
      }
    }
    expect(await userCount()).toBe(n);
  });

  it("walks nested messages, lists and JSON (Struct) contents, keys included", async () => {
    const n = await userCount();
    const email = () => `u-${randomUUID()}@example.com`;
    const cases: [unknown, string][] = [
      [{ email: email(), metadata: { deep: { list: ["ok", "no\u0000"] } } }, "metadata.deep.list[1]"],
      [{ email: email(), metadata: { "k\u0000": 1 } }, "metadata"],
      [{ email: email(), metadata: { lone: "\uD83D" } }, "metadata.lone"],
      [{ email: email(), wallets: [{ chain: "EVM", publicWalletAddress: "0x\u0000" }] }, "wallets[0].publicWalletAddress"],
    ];
    for (const [body, field] of cases) {
      const res = await api("POST", `/environments/${t.environmentId}/users`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe("validation_error");
      expect(res.body.payload.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // Bulk creation takes a list as the whole body.
    const bulk = await api("POST", `/environments/${t.environmentId}/users/bulk`, [{ email: email(), firstName: "a\u0000" }]);
    expect(bulk.status, bulk.text).toBe(400);
    expect(await userCount()).toBe(n);
  });

  it("checks query parameters too (the users list filter)", async () => {
    const res = await api("GET", `/environments/${t.environmentId}/users?filter[filterColumn]=email&filter[filterValue]=a%00b`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.payload.errors).toContainEqual({ field: "filter.filterValue", message: expect.any(String) });
  });

  it("keeps well-formed text outside the BMP as sent", async () => {
    const res = await api("POST", `/environments/${t.environmentId}/users`, { email: `u-${randomUUID()}@example.com`, alias: "rocket 🚀 é", metadata: { "ключ": "😀" } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.alias).toBe("rocket 🚀 é");
    expect(res.body.user.metadata).toEqual({ "ключ": "😀" });
  });
});

/** Sends raw bytes over HTTP/1.1 and resolves with everything the server wrote before closing. */
function rawRequest(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(app.port, "127.0.0.1");
    let got = "";
    socket.on("data", (d) => (got += d.toString("utf8")));
    socket.on("end", () => resolve(got));
    socket.on("error", reject);
    socket.write(bytes);
  });
}

function parseRaw(raw: string) {
  const [head, body] = raw.split("\r\n\r\n");
  return { status: Number(head!.split(" ")[1]), head: head!.toLowerCase(), body: JSON.parse(body!) };
}

describe("malformed HTTP", () => {
  it("answers headers over 16 KB with 431 and the JSON error body", async () => {
    const raw = await rawRequest(`GET /api/v0/eventTypes HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
    const res = parseRaw(raw);
    expect(res.status, raw).toBe(431);
    expect(res.head).toContain("content-type: application/json");
    expect(res.body).toEqual({ error: expect.any(String), code: "request_header_fields_too_large" });
  });

  it("answers a URL over 16 KB the same way", async () => {
    const res = await fetch(`${app.baseUrl}/api/v0/environments/${t.environmentId}/users?x=${"a".repeat(20_000)}`, {
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ error: expect.any(String), code: "request_header_fields_too_large" });
  });

  it("answers an unparsable request line with 400 and the JSON error body", async () => {
    const res = parseRaw(await rawRequest("NOT AN HTTP REQUEST\r\n\r\n"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), code: "malformed_request" });
  });

  it("never echoes the body of a malformed JSON request", async () => {
    const secret = "sk_live_do_not_echo_me";
    const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/tokens`, { token: t.token, rawBody: `{"note": ${secret}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), code: "malformed_json" });
    expect(res.text).not.toContain("do_not_echo");
    expect(res.text).not.toContain("note");
  });
});

describe("the OAuth authorize page", () => {
  it("is served with a strict CSP (its own inline script and style only), no framing, no caching, no referrer", async () => {
    const created = await api("POST", `/environments/${t.environmentId}/settings/providers`, {
      provider: "oidc",
      clientId: "client-csp",
      clientSecret: "s3cret",
      authorizationUrl: "https://issuer.example/authorize",
    });
    expect(created.status, created.text).toBe(201);
    const res = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/providers/oidc/authorizeHtml`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy")!;
    const directives = new Map(csp.split(";").map((d) => { const [k, ...v] = d.trim().split(/\s+/); return [k!, v] as const; }));
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("base-uri")).toEqual(["'none'"]);
    expect(csp).not.toContain("unsafe-inline");
    // The allowed script is exactly the page's inline script (and nothing else would run).
    const { createHash } = await import("node:crypto");
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(directives.get("script-src")).toEqual([`'sha256-${createHash("sha256").update(script).digest("base64")}'`]);
    expect(directives.get("style-src")).toEqual([`'sha256-${createHash("sha256").update(style).digest("base64")}'`]);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("found by the fuzz test (test/e2e/fuzz.test.ts)", () => {
  it("an SSO issuer that is no URL at all (built from a hostile ssoDomain) is 400 invalid_url, not 500", async () => {
    const path = `/organizations/${t.organizationId}/ssoProvider`;
    const create = await api("POST", path, { protocol: "oidc", ssoDomain: "<script>alert(1)</script>", clientId: "c", clientSecret: "s" });
    expect(create.status, create.text).toBe(400);
    expect(create.body).toMatchObject({ code: "invalid_url", error: expect.any(String) });
    const made = await api("POST", path, { protocol: "oidc", issuer: "https://idp.example.com", clientId: "c", clientSecret: "s" });
    expect(made.status, made.text).toBe(201);
    const update = await api("PUT", `${path}/${made.body.id}`, { ssoDomain: "a b" });
    expect(update.status, update.text).toBe(400);
    expect(update.body.code).toBe("invalid_url");
  });

  it("an optional field with named values sent empty (a custom field's validationType) is 400 naming it, not 500; nothing changes", async () => {
    const made = await api("POST", `/environments/${t.environmentId}/custom/fields`, { name: `vt${Date.now()}`, label: "L", validationType: "text" });
    expect(made.status, made.text).toBe(201);
    const id = made.body.id ?? made.body.customField?.id;
    const update = await api("PUT", `/custom/fields/${id}`, { validationType: "" });
    expect(update.status, update.text).toBe(400);
    expect(update.body).toMatchObject({ code: "validation_error" });
    expect(JSON.stringify(update.body.payload)).toContain("validationType");
    const row = await app.db.one("SELECT validation_type FROM custom_fields WHERE id = $1", [id]);
    expect(row.validation_type).toBe("text");
  });
});
