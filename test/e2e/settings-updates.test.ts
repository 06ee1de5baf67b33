import { readFileSync } from "node:fs";
import { Configuration, EnvironmentsApi, TimeUnitEnum } from "@dynamic-labs/sdk-api";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentsService } from "../../src/gen/sigil/environments/v0/environments_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";

let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `env-settings-${Date.now()}@example.com` });
});
afterAll(() => app?.stop());

/** The published client's EnvironmentsApi with the environment's API token, as a developer configures it. */
const environments = (token = t.token) =>
  new EnvironmentsApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: token, headers: { Authorization: `Bearer ${token}` } }));
const put = (body: unknown, environmentId = t.environmentId) => call(app.baseUrl, "PUT", `/environments/${environmentId}`, { token: t.token, body });
const stored = async (environmentId = t.environmentId) => (await app.db.one("SELECT settings FROM environments WHERE id = $1", [environmentId])).settings;
const externalAuth = { enabled: true, iss: "https://idp.example", aud: "shop", jwksUrl: "https://idp.example/.well-known/jwks.json" };

describe("environment security settings by the published client's names", () => {
  it("reads and writes jwtDuration, mfa, auth, hCaptcha and externalAuth; jwtDuration is the JWTs' lifetime", async () => {
    const x = await app.bootstrap({ ownerEmail: `env-settings-names-${Date.now()}@example.com` });
    const fresh = await environments(x.token).getEnvironmentById({ environmentId: x.environmentId });
    expect(fresh.settings!.security).toEqual({ jwtDuration: { amount: 2, unit: "hours" }, auth: { storage: ["localstorage"] }, hCaptcha: { enabled: false } });

    const answer = await environments(x.token).updateProjectSettings({
      environmentId: x.environmentId,
      projectSettings: {
        ...fresh.settings!,
        security: { jwtDuration: { amount: 15, unit: TimeUnitEnum.Minutes }, mfa: { enabled: true, required: false }, externalAuth, auth: { storage: [] } },
      },
    });
    expect(answer.security).toMatchObject({ jwtDuration: { amount: 15, unit: "minutes" }, mfa: { enabled: true, required: false }, externalAuth });
    const raw = (await call(app.baseUrl, "GET", `/environments/${x.environmentId}`, { token: x.token })).body.settings.security;
    expect(Object.keys(raw)).not.toContain("jwtExpirationSeconds");
    expect(Object.keys(raw)).not.toContain("allowedRedirectUrls");

    const s = await signInAs(app, x.environmentId);
    const claims = decodeJwt(s.jwt);
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    // The SDK's view (what a client app loads first) says the same.
    const sdkView = (await call(app.baseUrl, "GET", `/sdk/${x.environmentId}/settings`)).body;
    expect(sdkView.security).toMatchObject({ jwtDuration: { amount: 15, unit: "minutes" }, mfa: { enabled: true }, auth: { storage: [] } });
  });

  it("refuses a lifetime out of range, an unknown unit, captcha and cookie storage, and changes nothing", async () => {
    const before = await stored();
    for (const [body, status, code] of [
      [{ security: { jwtDuration: { amount: 0, unit: "minutes" } } }, 400, "invalid_jwt_duration"],
      [{ security: { jwtDuration: { amount: 31, unit: "days" } } }, 400, "invalid_jwt_duration"],
      [{ security: { jwtDuration: { amount: 90, unit: "seconds" } } }, 400, "invalid_request"],
      [{ security: { hCaptcha: { enabled: true, siteKey: "site" } } }, 422, "captcha_unsupported"],
      [{ security: { auth: { storage: ["cookie"] } } }, 422, "cookie_storage_unsupported"],
    ] as const) {
      const res = await put(body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      if (code !== "invalid_request") expect(res.body.code).toBe(code);
    }
    expect(await stored()).toEqual(before);
  });
});

describe("a partial settings update", () => {
  it("over REST changes only what the body names: enabling MFA keeps externalAuth, jwtDuration and every other section", async () => {
    const set = await put({
      general: { displayName: "Shop", supportEmail: "help@shop.example" },
      security: { jwtDuration: { amount: 3, unit: "hours" }, externalAuth, mfa: { enabled: false, required: true, methods: [{ type: "totp", enabled: true }] } },
      sdk: { multiWallet: true },
      design: { modal: { theme: "dark", radius: 4 } },
    });
    expect(set.status, set.text).toBe(200);

    // What the client sends for "turn MFA on": ProjectSettingsSecurity with mfa only.
    const api = environments();
    const current = await api.getEnvironmentById({ environmentId: t.environmentId });
    await api.updateProjectSettings({ environmentId: t.environmentId, projectSettings: { ...current.settings!, security: { mfa: { enabled: true } } } });
    const after = (await call(app.baseUrl, "GET", `/environments/${t.environmentId}`, { token: t.token })).body.settings;
    expect(after.security).toMatchObject({ jwtDuration: { amount: 3, unit: "hours" }, externalAuth, mfa: { enabled: true, required: true, methods: [{ type: "totp", enabled: true }] } });
    expect(after.general).toMatchObject({ displayName: "Shop", supportEmail: "help@shop.example" });
    expect(after.sdk.multiWallet).toBe(true);

    // Deeper still: one property of design, and false is a value like any other.
    expect((await put({ design: { modal: { radius: 8 } }, sdk: { multiWallet: false } })).status).toBe(200);
    const deeper = await stored();
    expect(deeper.design).toEqual({ modal: { theme: "dark", radius: 8 } });
    expect(deeper.sdk.multiWallet).toBe(false);
    expect(deeper.security.externalAuth).toMatchObject(externalAuth);

    // A list named is replaced whole; null resets a property to its default; an empty object names nothing.
    expect((await put({ security: { mfa: { methods: [] }, jwtDuration: null }, general: {} })).status).toBe(200);
    const reset = (await call(app.baseUrl, "GET", `/environments/${t.environmentId}`, { token: t.token })).body.settings;
    expect(reset.security.mfa).toMatchObject({ enabled: true, required: true, methods: [] });
    expect(reset.security.jwtDuration).toEqual({ amount: 2, unit: "hours" });
    expect(reset.general.displayName).toBe("Shop");
  });

  it("over gRPC changes what the update_mask names, or without one what the request populates", async () => {
    const x = await app.bootstrap({ ownerEmail: `env-settings-grpc-${Date.now()}@example.com` });
    const client = createClient(EnvironmentsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${x.token}` };
    const environmentId = x.environmentId;
    await client.updateEnvironmentSettings(
      { environmentId, general: { displayName: "Grpc" }, security: { jwtDuration: { amount: 1, unit: "days" }, externalAuth, mfa: { enabled: false, required: true } } },
      { headers },
    );
    // No mask: the populated fields (mfa.enabled) and nothing else.
    await client.updateEnvironmentSettings({ environmentId, security: { mfa: { enabled: true } } }, { headers });
    let s = (await stored(environmentId)).security;
    expect(s).toMatchObject({ jwtDuration: { amount: 1, unit: "days" }, externalAuth, mfa: { enabled: true, required: true } });
    // A mask sets a false (which proto3 cannot populate) and leaves the rest.
    await client.updateEnvironmentSettings({ environmentId, security: { mfa: {} }, updateMask: { paths: ["security.mfa.required"] } }, { headers });
    s = (await stored(environmentId)).security;
    expect(s).toMatchObject({ jwtDuration: { amount: 1, unit: "days" }, externalAuth, mfa: { enabled: true, required: false } });
    expect((await stored(environmentId)).general.displayName).toBe("Grpc");
    // A mask naming what the settings do not have is refused.
    const bad = await client
      .updateEnvironmentSettings({ environmentId, updateMask: { paths: ["security.jwt_expiration_seconds"] } }, { headers })
      .catch((e) => ConnectError.from(e));
    expect((bad as ConnectError).code).toBe(Code.InvalidArgument);
    expect((bad as ConnectError).message).toMatch(/update_mask/);
  });
});

describe("stored settings of the former names", () => {
  it("are rewritten by the migration: the lifetime into jwtDuration, redirect URLs into deeplink URLs", async () => {
    const x = await app.bootstrap({ ownerEmail: `env-settings-migration-${Date.now()}@example.com` });
    await app.db.none("UPDATE environments SET settings = $2 WHERE id = $1", [
      x.environmentId,
      { general: { displayName: "Old" }, security: { jwtExpirationSeconds: 5400, allowedRedirectUrls: ["https://old.example/cb"], allowedEmailDomains: ["old.example"] } },
    ]);
    const other = await app.bootstrap({ ownerEmail: `env-settings-migration-days-${Date.now()}@example.com` });
    await app.db.none("UPDATE environments SET settings = $2 WHERE id = $1", [other.environmentId, { security: { jwtExpirationSeconds: 172800 } }]);
    await app.db.none(readFileSync(new URL("../../src/db/migrations/038_security_settings_client_names.sql", import.meta.url), "utf8"));

    expect((await stored(x.environmentId)).security).toEqual({ jwtDuration: { amount: 90, unit: "minutes" }, allowedEmailDomains: ["old.example"] });
    expect((await stored(other.environmentId)).security).toEqual({ jwtDuration: { amount: 2, unit: "days" } });
    const urls = await app.db.any("SELECT url FROM deeplink_urls WHERE environment_id = $1", [x.environmentId]);
    expect(urls.map((u: { url: string }) => u.url)).toEqual(["https://old.example/cb"]);
    const s = await signInAs(app, x.environmentId, `someone-${Date.now()}@old.example`);
    const claims = decodeJwt(s.jwt);
    expect(claims.exp! - claims.iat!).toBe(5400);
  });
});
