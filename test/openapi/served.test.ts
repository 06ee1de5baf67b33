import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Configuration, SDKApi, UsersApi, type FetchAPI } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { launchChromium } from "../support/chromium.js";
import { startTestApp, type TestApp } from "../support/app.js";

/**
 * The published contract as a client meets it: the document at /openapi.json, the reference page at /docs
 * (Redoc) rendered by a real browser from this origin alone, and the published client's calls landing on the
 * document's operations with answers the document declares.
 */
type Op = { operationId: string; summary: string; responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: { code?: { enum?: string[] } } }[] } }> }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Op>> };

const SHOTS = path.resolve(import.meta.dirname, "../../test-results/openapi");
const generated = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../src/gen/openapi.json"), "utf8")) as Doc;

let app: TestApp;
let tenant: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  tenant = await app.bootstrap();
});
afterAll(async () => {
  await app?.stop();
});

/** The document's operation for a request the client made, matching each `{param}` to one segment. */
function operationOf(doc: Doc, method: string, urlPath: string): { path: string; op: Op } | undefined {
  for (const [p, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${p.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const op = item[method.toLowerCase()];
    if (op && re.test(urlPath)) return { path: p, op };
  }
  return undefined;
}

describe("GET /openapi.json", () => {
  it("serves the generated document as JSON, to anyone", async () => {
    const res = await fetch(`${app.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(generated);
    expect(generated.openapi).toBe("3.1.0");
  });

  it("answers HEAD, refuses other methods with 405, and is a CORS-readable path", async () => {
    expect((await fetch(`${app.baseUrl}/openapi.json`, { method: "HEAD" })).status).toBe(200);
    const post = await fetch(`${app.baseUrl}/openapi.json`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const preflight = await fetch(`${app.baseUrl}/openapi.json`, { method: "OPTIONS", headers: { origin: "https://editor.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
  });
});

describe("GET /docs", () => {
  it("is an HTML page whose scripts are all served from this origin", async () => {
    const res = await fetch(`${app.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    // data: URLs (the empty favicon, which spares the browser a request) are the page's own bytes.
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((r) => !r.startsWith("data:"));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, "a local path").toMatch(/^\/[^/]/);
      const asset = await fetch(`${app.baseUrl}${ref}`);
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get("content-type"), ref).toMatch(/^text\/javascript/);
      await asset.arrayBuffer();
    }
    expect((await fetch(`${app.baseUrl}/docs/assets/nothing.js`)).status).toBe(404);
  });

  it("renders the reference in a real browser without a request to any other host", { timeout: 180_000 }, async () => {
    await mkdir(SHOTS, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const elsewhere: string[] = [];
      const failed: string[] = [];
      const problems: string[] = [];
      await page.setRequestInterception(true);
      page.on("request", (r) => {
        const url = r.url();
        // Refused, not just noted: the page must work with no network beyond its own origin.
        if (!url.startsWith(app.baseUrl) && !url.startsWith("data:") && !url.startsWith("blob:")) {
          elsewhere.push(url);
          void r.abort();
        } else void r.continue();
      });
      page.on("requestfailed", (r) => void failed.push(r.url()));
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => void problems.push(String(e)));
      await page.goto(`${app.baseUrl}/docs`, { waitUntil: "load" });
      // Rendering a document of this size takes a while on a loaded machine.
      await page.waitForFunction(() => document.body.innerText.includes("Sigil API"), { timeout: 90_000 });
      // The first group of the reference opens with its operations, titled by their summaries.
      const first = Object.values(generated.paths)[0];
      const summary = Object.values(first)[0].summary;
      await page.waitForFunction((text) => document.body.innerText.includes(text), { timeout: 90_000 }, summary);
      await page.screenshot({ path: path.join(SHOTS, "docs.png") });
      expect(elsewhere).toEqual([]);
      expect(failed.filter((u) => u.startsWith(app.baseUrl))).toEqual([]);
      // Redoc's sidebar footer always tries its logo on its CDN: the page's policy refuses it before any
      // request is made (and the footer shows its text alone). Nothing else may be refused.
      const refused = problems.filter((p) => /Content Security Policy|Refused to/.test(p));
      expect(refused.filter((p) => !p.includes("'https://cdn.redoc.ly/redoc/logo-mini.svg'"))).toEqual([]);
      expect(problems.filter((p) => !refused.includes(p))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

describe("the published client's calls and the document", () => {
  it("lands every call of @dynamic-labs/sdk-api on a documented operation, answered with a documented status and code", async () => {
    const seen: { method: string; path: string; status: number; code?: string }[] = [];
    const recording: FetchAPI = async (input, init) => {
      const res = await fetch(input, init);
      const body = res.status >= 400 ? ((await res.clone().json()) as { code?: string }) : undefined;
      seen.push({ method: init?.method ?? "GET", path: new URL(String(input)).pathname, status: res.status, code: body?.code });
      return res;
    };
    const config = (token?: string) => new Configuration({ basePath: `${app.baseUrl}/api/v0`, fetchApi: recording, ...(token ? { accessToken: token } : {}) });
    const sdk = new SDKApi(config());
    const environmentId = tenant.environmentId;
    const ignore = () => undefined;

    // SDKApi.createEmailVerification: public, 201-or-200 with a body.
    await sdk.createEmailVerification({ environmentId, emailVerificationCreateRequest: { email: `openapi-${randomUUID()}@example.com` } });
    // SDKApi.verify with a message no wallet signed: refused with a declared 4xx.
    await sdk.verify({ environmentId, verifyRequest: { signedMessage: "0x00", messageToSign: "hello", publicWalletAddress: "0x0000000000000000000000000000000000000000", chain: "EVM" as never, walletName: "metamask", walletProvider: "browserExtension" as never } }).catch(ignore);
    // SDKApi.getAuthenticatedUser without a session: 401.
    await sdk.getAuthenticatedUser({ environmentId }).catch(ignore);
    // UsersApi.getUserLegacy (management, the spec's operation 9): an unknown user is a 404.
    await new UsersApi(config(tenant.token)).getUserLegacy({ userId: randomUUID() }).catch(ignore);

    expect(seen.map((s) => `${s.method} ${s.path.replace(environmentId, "{environmentId}")}`)).toEqual([
      "POST /api/v0/sdk/{environmentId}/emailVerifications/create",
      "POST /api/v0/sdk/{environmentId}/verify",
      "GET /api/v0/sdk/{environmentId}/users",
      expect.stringMatching(/^GET \/api\/v0\/users\/[0-9a-f-]{36}$/),
    ]);
    const expectedIds = ["createEmailVerification", "verify", "getAuthenticatedUser", "getUserLegacy"];
    seen.forEach((call, i) => {
      const found = operationOf(generated, call.method, call.path);
      expect(found, `${call.method} ${call.path}`).toBeDefined();
      expect(found!.op.operationId).toBe(expectedIds[i]);
      const response = found!.op.responses[String(call.status)];
      expect(response, `${call.method} ${found!.path} answered ${call.status}`).toBeDefined();
      if (call.code !== undefined) {
        const codes = response.content?.["application/json"].schema.allOf?.[1].properties?.code?.enum;
        expect(codes, `${call.method} ${found!.path} ${call.status}`).toContain(call.code);
      }
    });
    expect(seen.slice(1).map((s) => s.status)).toEqual([expect.any(Number), 401, 404]);
  });
});
