import { randomUUID } from "node:crypto";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEnvironmentTenant } from "../../../src/db/repositories/tenant-access.js";
import { passSecondFactor } from "../../../src/domain/mfa/pass.js";
import type { ProvenCredential } from "../../../src/domain/sign-in/credentials.js";
import { linkCredential, signInWith } from "../../../src/domain/sign-in/pipeline.js";
import { mergePendingUser } from "../../../src/domain/wallet-sign-in/merge.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { failure } from "../../support/domain-errors.js";
import { call } from "../../support/http.js";

/**
 * Every way a credential of another user can be proved (wallet signature, e-mail code, OAuth / chat /
 * decentralized-social account, external JWT) ends in one link of the sign-in pipeline: a credential of a
 * user whose sign-in owes a second factor is offered for a merge only with their own factor, whatever the
 * method, and merging without it moves nothing.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 60_000);
afterAll(() => app?.stop());

const META = { ipAddress: null, userAgent: null, requestId: "" };

async function environment(mfa: Record<string, unknown>) {
  const t = await app.bootstrap({ ownerEmail: `other-user-${randomUUID()}@example.com` });
  const res = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { security: { mfa } } });
  expect(res.status, res.text).toBe(200);
  const e = (await findEnvironmentTenant(app.db, t.environmentId, null))!;
  return { environmentId: t.environmentId, environmentName: e.name, projectId: e.projectId, organizationId: e.organizationId };
}

const principalOf = (jwt: string) => {
  const c = decodeJwt(jwt) as Record<string, any>;
  return { kind: "end_user" as const, environmentId: c.environment_id, userId: c.sub, sessionId: c.sid, scope: c.scope, issuedAt: c.iat, expiresAt: c.exp };
};

const credentials = (): ProvenCredential[] => [
  { kind: "email", email: `b-${randomUUID()}@example.com` },
  { kind: "wallet", chain: "EVM", address: `0x${randomUUID().replace(/-/g, "").padEnd(40, "0")}`, walletName: "metamask", walletProvider: "browserExtension" },
  { kind: "oauth", provider: "github", accountId: randomUUID(), emails: [], photos: [], metadata: {} },
  { kind: "external", externalUserId: randomUUID() },
];

describe("taking another user's credential, by any method", () => {
  it("TOTP required: 422 says the other user's factor is needed, and the merge is refused without it", async () => {
    const env = await environment({ enabled: true, required: true, methods: [{ type: "totp", enabled: true }] });
    for (const credential of credentials()) {
      const b = await signInWith(app.deps, env, credential, META);
      const a = await signInWith(app.deps, env, { kind: "email", email: `a-${randomUUID()}@example.com` }, META);
      const full = await passSecondFactor(app.deps, env, principalOf(a.tokens.jwt), { type: "totp", deviceId: null }, META);
      const caller = principalOf(full.tokens.jwt);

      const link = await failure(linkCredential(app.deps, env, caller, credential, META));
      expect({ kind: credential.kind, code: link.code, payload: link.payload }).toMatchObject({
        kind: credential.kind,
        code: "credential_owned_by_another_user",
        payload: { otherUserId: b.user.user.id, merge: true, otherUserSecondFactorRequired: true },
      });
      const merge = await failure(mergePendingUser(app.deps, env, caller, null, "", null));
      expect({ kind: credential.kind, code: merge.code }).toEqual({ kind: credential.kind, code: "other_user_second_factor_required" });
      const other = await app.db.one("SELECT deleted_at FROM users WHERE id = $1", [b.user.user.id]);
      expect(other.deleted_at).toBeNull();

      // A session still owing its own factor links nothing (defence behind the interceptor's refusal).
      const pending = await failure(linkCredential(app.deps, env, principalOf(a.tokens.jwt), credential, META));
      expect(pending.code).toBe("mfa_required");
    }
  });

  it("MFA off: the other user's sign-in owes nothing, and the merge happens as before", async () => {
    const env = await environment({ enabled: false });
    for (const credential of credentials()) {
      const b = await signInWith(app.deps, env, credential, META);
      const a = await signInWith(app.deps, env, { kind: "email", email: `a-${randomUUID()}@example.com` }, META);
      const caller = principalOf(a.tokens.jwt);
      const link = await failure(linkCredential(app.deps, env, caller, credential, META));
      expect(link.payload).toMatchObject({ merge: true, otherUserSecondFactorRequired: false });
      await mergePendingUser(app.deps, env, caller, [{ userId: caller.userId, fieldKey: "email", type: "standard" }], "", null);
      const other = await app.db.one("SELECT deleted_at FROM users WHERE id = $1", [b.user.user.id]);
      expect(other.deleted_at).not.toBeNull();
    }
  });
});
