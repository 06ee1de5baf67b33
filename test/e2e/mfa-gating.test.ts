import { randomUUID } from "node:crypto";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";
import { passSecondFactor } from "../../src/domain/mfa/pass.js";
import { factorLock } from "../../src/domain/mfa/lockout.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";

/**
 * MFA at sign-in, as the environment's settings (security.mfa) decide: a session that still owes its second
 * factor carries only requiresAdditionalAuth, which nothing but the MFA operations (and signing out)
 * accept; passing the factor gives the same session its full scope. The factor checks themselves (TOTP,
 * passkeys, recovery and e-mail codes) have their own tests; here the factor is passed by the domain call
 * every one of them ends in.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

async function tenantWithMfa(mfa: Record<string, unknown>): Promise<BootstrapResult> {
  const t = await app.bootstrap({ ownerEmail: `mfa-${randomUUID()}@example.com` });
  const res = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { security: { mfa } } });
  expect(res.status, res.text).toBe(200);
  return t;
}

async function principalOf(environmentId: string, jwt: string) {
  const env = (await findEnvironmentTenant(app.db, environmentId, null))!;
  const c = decodeJwt(jwt) as Record<string, any>;
  return {
    env: { environmentId, environmentName: env.name, projectId: env.projectId, organizationId: env.organizationId },
    principal: {
      kind: "end_user" as const,
      environmentId,
      userId: c.sub as string,
      sessionId: c.sid as string,
      scope: c.scope as string,
      issuedAt: c.iat as number,
      expiresAt: c.exp as number,
      refreshId: c.refresh_id as string,
    },
  };
}

describe("a sign-in owing its second factor", () => {
  it("gets only requiresAdditionalAuth, refused (403 mfa_required) everywhere but MFA and sign-out, until a factor passes", async () => {
    const t = await tenantWithMfa({ enabled: true, required: true });
    const s = await signInAs(app, t.environmentId);
    expect(decodeJwt(s.jwt).scope).toBe("requiresAdditionalAuth");

    const client = sdkFor(app.baseUrl, s.jwt);
    const me = await refused(client.getAuthenticatedUser({ environmentId: t.environmentId }));
    expect(me.status).toBe(403);
    expect(me.body).toMatchObject({ code: "mfa_required" });
    expect((await refused(client.refreshAuth({ environmentId: t.environmentId }))).status).toBe(403);
    expect((await refused(client.sessionCheck({ environmentId: t.environmentId }))).status).toBe(403);

    // The factor passes: the same session, its full scope, and the event.
    const { env, principal } = await principalOf(t.environmentId, s.jwt);
    const passed = await passSecondFactor(app.deps, env, principal, { type: "totp", deviceId: null }, { ipAddress: null, userAgent: null, requestId: "" }, {
      createMfaToken: { singleUse: true },
    });
    expect(passed.tokens.sessionId).toBe(s.sessionId);
    expect(passed.tokens.scope).toBe("user:basic");
    expect(passed.mfaToken).toMatch(/^mfa_/);
    const full = sdkFor(app.baseUrl, passed.tokens.jwt);
    expect((await full.getAuthenticatedUser({ environmentId: t.environmentId })).id).toBe(s.userId);
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1 AND event_name = 'user.mfa.passed'", [t.environmentId]);
    expect(events).toHaveLength(1);
    // The session row carries the scope now; a refresh keeps it.
    const refreshed = await full.refreshAuth({ environmentId: t.environmentId });
    expect(decodeJwt(refreshed.jwt!).scope).toBe("user:basic");
    // The pending token still names the session, but its scope is refused as before (it is not upgraded).
    expect((await refused(client.getAuthenticatedUser({ environmentId: t.environmentId }))).status).toBe(403);
  });

  it("can sign out", async () => {
    const t = await tenantWithMfa({ enabled: true, required: true });
    const s = await signInAs(app, t.environmentId);
    await sdkFor(app.baseUrl, s.jwt).revokeSession({ environmentId: t.environmentId });
    const row = await app.db.one("SELECT revoked_at FROM sessions WHERE id = $1", [s.sessionId]);
    expect(row.revoked_at).not.toBeNull();
  });

  it("MFA enabled but not required: only users with a verified device owe a factor; MFA off: nobody", async () => {
    const t = await tenantWithMfa({ enabled: true, required: false });
    const email = `enrolled-${randomUUID()}@example.com`;
    const first = await signInAs(app, t.environmentId, email);
    expect(decodeJwt(first.jwt).scope).toBe("user:basic");
    await app.db.none("INSERT INTO user_mfa_devices (id, environment_id, user_id, type, is_default, verified_at) VALUES ($1, $2, $3, 'totp', true, now())", [
      randomUUID(),
      t.environmentId,
      first.userId,
    ]);
    expect(decodeJwt((await signInAs(app, t.environmentId, email)).jwt).scope).toBe("requiresAdditionalAuth");
    // An unverified device does not count.
    const other = await signInAs(app, t.environmentId);
    await app.db.none("INSERT INTO user_mfa_devices (id, environment_id, user_id, type) VALUES ($1, $2, $3, 'totp')", [randomUUID(), t.environmentId, other.userId]);
    expect(decodeJwt((await signInAs(app, t.environmentId, other.email)).jwt).scope).toBe("user:basic");

    const off = await tenantWithMfa({ enabled: false, required: true });
    expect(decodeJwt((await signInAs(app, off.environmentId)).jwt).scope).toBe("user:basic");
  });

  it("the settings read back as stored, and refuse unknown kinds", async () => {
    const t = await tenantWithMfa({ enabled: true, required: true, methods: [{ type: "totp", enabled: true, allowBackupCodes: true }] });
    const env = await call(app.baseUrl, "GET", `/environments/${t.environmentId}`, { token: t.token });
    expect(env.body.settings?.security?.mfa ?? env.body.security?.mfa).toMatchObject({ enabled: true, required: true, methods: [{ type: "totp", enabled: true }] });
    const bad = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, {
      token: t.token,
      body: { security: { mfa: { enabled: true, methods: [{ type: "sms", enabled: true }] } } },
    });
    expect(bad.status).toBe(400);
  });
});

describe("the factor lock", () => {
  it("five wrong answers lock the factor, for longer each time; a pass clears the count", async () => {
    const env = randomUUID();
    const user = randomUUID();
    const attempt = async (right: boolean) => {
      const lock = factorLock(app.deps.store, env, user, "totp");
      try {
        await lock.check();
      } catch (err) {
        return err as { code: string; payload: { retryAfterSeconds: number } };
      }
      await (right ? lock.passed() : lock.failed());
      return "answered";
    };
    for (let i = 0; i < 4; i++) expect(await attempt(false)).toBe("answered");
    expect(await attempt(true)).toBe("answered"); // the fifth is right: the count clears
    for (let i = 0; i < 5; i++) expect(await attempt(false)).toBe("answered");
    const locked = await attempt(true);
    expect(locked).toMatchObject({ code: "factor_locked" });
    const first = (locked as { payload: { retryAfterSeconds: number } }).payload.retryAfterSeconds;
    expect(first).toBeGreaterThan(30);
    expect(first).toBeLessThanOrEqual(60);
    // Another factor of the same user is not locked.
    await expect(factorLock(app.deps.store, env, user, "recovery").check()).resolves.toBeUndefined();
    // The lock ends (forced here), five more wrong answers lock again, for longer.
    await app.deps.store.del(`mfa:guard:${env}:${user}:totp:lock`);
    for (let i = 0; i < 5; i++) expect(await attempt(false)).toBe("answered");
    const again = (await attempt(true)) as { payload: { retryAfterSeconds: number } };
    expect(again.payload.retryAfterSeconds).toBeGreaterThan(60);
  });

  it("concurrent guesses cannot slip past the limit together", async () => {
    const env = randomUUID();
    const user = randomUUID();
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => factorLock(app.deps.store, env, user, "totp").check()));
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(5);
  });
});
