import { randomUUID } from "node:crypto";
import { Configuration, NextViewEnum, SDKApi, UserFieldsCheckEnum } from "@dynamic-labs/sdk-api";
import { decodeJwt } from "jose";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { codeIn, startSmsPeer, startSmtpPeer } from "./support/code-peers.js";
import { refused } from "../support/sdk-client.js";

/**
 * The signed-in end user's own account through the published client's SDKApi (unchanged, basePath /api/v0,
 * the session JWT as its bearer token): read, update (only collected fields; a new email or phone is not
 * trusted until verified), hard delete, uniqueness checks and wallet selection, and the attacks on them.
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let smsPeer: Awaited<ReturnType<typeof startSmsPeer>>;
beforeAll(async () => {
  // Real peers on loopback receive the codes a changed email or phone number is sent.
  smtp = await startSmtpPeer();
  smsPeer = await startSmsPeer();
  app = await startTestApp({ verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, smsApiUrl: smsPeer.url } });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
  await smsPeer?.close();
});

const sdkAs = (jwt?: string) =>
  new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0`, ...(jwt ? { accessToken: jwt, headers: { Authorization: `Bearer ${jwt}` } } : {}) }));

const manage = async (t: BootstrapResult, method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const userRow = (id: string) => app.db.oneOrNone("SELECT * FROM users WHERE id = $1", [id]);
const eventsOf = (environmentId: string, name: string, userId: string) =>
  app.db.any("SELECT * FROM events WHERE environment_id = $1 AND event_name = $2 AND user_id = $3", [environmentId, name, userId]);

/** A tenant whose SDK collects first name, username and phone number besides the email. */
async function collectingTenant() {
  const t = await app.bootstrap({ ownerEmail: `own-${randomUUID()}@example.com` });
  await manage(t, "PUT", `/environments/${t.environmentId}`, {
    sdk: {
      collectUserData: {
        email: { enabled: true, required: false },
        firstName: { enabled: true, required: false },
        username: { enabled: true, required: false },
        phoneNumber: { enabled: true, required: false },
      },
    },
  });
  await manage(t, "POST", `/environments/${t.environmentId}/settings/providers`, {
    provider: "sms", accountSid: "AC0123456789", smsNumber: "+15005550006", clientSecret: "sms-auth-token",
  });
  return t;
}

describe("getAuthenticatedUser", () => {
  it("answers the session's user with its credentials and session", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const user = await sdkAs(me.jwt).getAuthenticatedUser({ environmentId: t.environmentId });
    expect(user.id).toBe(me.userId);
    expect(user.email).toBe(me.email);
    expect(user.sessionId).toBe(me.sessionId);
    expect(user.scope).toContain("user:basic");
    expect(user.verifiedCredentials.map((c) => c.email)).toContain(me.email);
  });

  it("answers 401 without a token, with an API token, another environment's token, a tampered or revoked one", async () => {
    const t = await collectingTenant();
    const other = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const stranger = await signInAs(app, other.environmentId);
    const [h, p, s] = me.jwt.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(me.jwt), sub: stranger.userId })).toString("base64url")}.${s}`;
    for (const jwt of [undefined, t.token, stranger.jwt, tampered, `${h}.${p}.`]) {
      const res = await refused(sdkAs(jwt).getAuthenticatedUser({ environmentId: t.environmentId }));
      expect(res.status, String(jwt).slice(0, 20)).toBe(401);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    await sdkAs(me.jwt).revokeSession({ environmentId: t.environmentId });
    expect((await refused(sdkAs(me.jwt).getAuthenticatedUser({ environmentId: t.environmentId }))).status).toBe(401);
  });
});

describe("updateSelf", () => {
  it("changes collected fields, audits user.updated with its event, and answers a fresh token of the same session", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const res = await sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { firstName: "Ada", username: "ada" } });
    expect(res.nextView).toBe(NextViewEnum.Done);
    expect(res.user).toMatchObject({ id: me.userId, firstName: "Ada", username: "ada" });
    expect(res.jwt).toBeTruthy();
    expect(res.expiresAt).toBeGreaterThan(Date.now() / 1000);
    const claims = decodeJwt(res.jwt!);
    expect(claims.sid).toBe(me.sessionId);
    expect(claims.sub).toBe(me.userId);
    // The new token works.
    expect((await sdkAs(res.jwt).getAuthenticatedUser({ environmentId: t.environmentId })).firstName).toBe("Ada");
    expect(await userRow(me.userId)).toMatchObject({ first_name: "Ada", username: "ada" });
    const audit = await app.db.one("SELECT * FROM audit_log WHERE environment_id = $1 AND action = 'user.updated' AND resource_id = $2", [t.environmentId, me.userId]);
    expect(audit.actor_user_id).toBe(me.userId);
    expect(await eventsOf(t.environmentId, "user.updated", me.userId)).toHaveLength(1);
  });

  it("refuses a field the environment does not collect, and changes nothing", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const before = await userRow(me.userId);
    for (const userFields of [{ jobTitle: "CEO" }, { firstName: "Ok", alias: "sneaky" }, { metadata: { role: "admin" } }]) {
      const res = await refused(sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields }));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("user_field_not_collected");
    }
    expect(await userRow(me.userId)).toEqual(before);
  });

  it("merges the environment's custom fields into the metadata, enforcing their uniqueness", async () => {
    const t = await collectingTenant();
    await manage(t, "POST", `/environments/${t.environmentId}/custom/fields`, { name: "nickname", validationRules: { unique: true } });
    const me = await signInAs(app, t.environmentId);
    const rival = await signInAs(app, t.environmentId);
    // Metadata the environment's back end keeps is not the end user's to erase.
    await manage(t, "PUT", `/users/${me.userId}`, { metadata: { tier: "gold" } });
    await sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { metadata: { nickname: "ace" } } });
    expect((await userRow(me.userId)).metadata).toEqual({ tier: "gold", nickname: "ace" });
    const taken = await refused(sdkAs(rival.jwt).updateSelf({ environmentId: t.environmentId, userFields: { metadata: { nickname: "ACE" } } }));
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe("custom_field_not_unique");
  });

  it("does not store a new email before it is verified: it sends a code, and redeeming it adds the email", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const fresh = `new-${randomUUID()}@example.com`;
    const res = await sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { email: fresh, firstName: "Grace" } });
    expect(res.nextView).toBe(NextViewEnum.VerifyEmail);
    expect(res.emailVerification).toEqual({ verificationUUID: expect.any(String), email: fresh });
    expect(res.user).toMatchObject({ email: me.email, firstName: "Grace" });
    expect((await userRow(me.userId)).email).toBe(me.email);

    const code = codeIn((await smtp.mailTo(fresh)).parsed.text ?? "");
    const verified = await sdkAs(res.jwt).verifyEmailVerification({
      environmentId: t.environmentId,
      emailVerificationVerifyRequest: { verificationUUID: res.emailVerification!.verificationUUID, verificationToken: code },
    });
    expect(verified.user.verifiedCredentials.map((c) => c.email)).toContain(fresh);
    // The same email in another case is no change.
    expect((await sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { email: me.email.toUpperCase() } })).nextView).toBe(NextViewEnum.Done);
  });

  it("does not store a new phone number before it is verified: it sends an SMS code", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const res = await sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { phoneNumber: "+14155552671" } });
    expect(res.nextView).toBe(NextViewEnum.VerifySms);
    expect(res.smsVerification).toEqual({ verificationUUID: expect.any(String), phoneNumber: "4155552671", phoneCountryCode: "1", isoCountryCode: "US" });
    expect((await userRow(me.userId)).phone_number).toBeNull();
    expect(codeIn((await smsPeer.smsTo("+14155552671")).form.Body ?? "")).toMatch(/^\d{6}$/);
    const national = await refused(sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { phoneNumber: "4155552671" } }));
    expect([national.status, national.body.code]).toEqual([400, "invalid_phone_number"]);
  });

  it("refuses a cleared or malformed email (a quoted local part too) and a double change, and changes nothing nor sends anything", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const before = await userRow(me.userId);
    const sent = smtp.mails.length + smsPeer.received.length;
    const cases: [Record<string, string>, number, string][] = [
      [{ email: `"quoted"@example.com` }, 400, "validation_error"],
      [{ email: "" }, 422, "verified_field_cannot_be_cleared"],
      [{ email: `a-${randomUUID()}@example.com`, phoneNumber: "+14155552671" }, 422, "one_verification_at_a_time"],
      [{ email: "not-an-email" }, 400, "validation_error"],
    ];
    for (const [userFields, status, code] of cases) {
      const res = await refused(sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields }));
      expect([res.status, res.body.code], JSON.stringify(userFields)).toEqual([status, code]);
    }
    expect(await userRow(me.userId)).toEqual(before);
    expect(smtp.mails.length + smsPeer.received.length).toBe(sent);
  });
});

describe("getUserFieldsCheck", () => {
  it("sends filter[field] and filter[value] and answers whether the value is free (the caller's own is)", async () => {
    const t = await collectingTenant();
    await manage(t, "POST", `/environments/${t.environmentId}/custom/fields`, { name: "employeeId", validationRules: { unique: true } });
    const me = await signInAs(app, t.environmentId);
    const rival = await signInAs(app, t.environmentId);
    const check = (field: string, value: string) => sdkAs(me.jwt).getUserFieldsCheck({ environmentId: t.environmentId, filter: { field: field as UserFieldsCheckEnum, value } });
    // Usernames are unique only where the environment says so (a unique standard field).
    const notUnique = await refused(check(UserFieldsCheckEnum.Username, "anyone"));
    expect([notUnique.status, notUnique.body.code]).toEqual([422, "field_not_checkable"]);
    await manage(t, "POST", `/environments/${t.environmentId}/custom/fields`, { name: "username", type: "standard", validationRules: { unique: true } });
    await sdkAs(rival.jwt).updateSelf({ environmentId: t.environmentId, userFields: { username: "Taken", metadata: { employeeId: "E-1" } } });
    // The update enforces what the check reports.
    const dup = await refused(sdkAs(me.jwt).updateSelf({ environmentId: t.environmentId, userFields: { username: " taken " } }));
    expect([dup.status, dup.body.code]).toEqual([422, "custom_field_not_unique"]);

    expect(await check(UserFieldsCheckEnum.Username, "taken")).toEqual({ field: "username", value: "taken", available: false });
    expect((await check(UserFieldsCheckEnum.Username, "free-name")).available).toBe(true);
    // E-mail and phone: only the caller's own (or the change being verified) are answered; see test/e2e/attacks/enumeration.test.ts.
    const someoneElses = await refused(check(UserFieldsCheckEnum.Email, rival.email));
    expect([someoneElses.status, someoneElses.body.code]).toEqual([422, "field_not_checkable"]);
    expect((await check(UserFieldsCheckEnum.Email, me.email)).available).toBe(true);
    expect((await check("employeeId", " e-1 ")).available).toBe(false);
    expect((await check("employeeId", "E-2")).available).toBe(true);
    const unknown = await refused(check("favouriteColour", "red"));
    expect([unknown.status, unknown.body.code]).toEqual([422, "field_not_checkable"]);
    const missing = await refused(sdkAs(me.jwt).getUserFieldsCheck({ environmentId: t.environmentId }));
    expect(missing.status).toBe(400);
    // Anonymous callers cannot probe the environment's users.
    expect((await refused(sdkAs().getUserFieldsCheck({ environmentId: t.environmentId, filter: { field: UserFieldsCheckEnum.Email, value: rival.email } }))).status).toBe(401);
  });
});

describe("selectUserWallet", () => {
  it("selects one of the caller's wallets and answers a fresh token; any other id is 404 and changes nothing", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId);
    const rival = await signInAs(app, t.environmentId);
    const link = async (userId: string) => {
      const address = privateKeyToAddress(generatePrivateKey());
      const wallet = await manage(t, "POST", `/environments/${t.environmentId}/users/${userId}/wallets`, {
        publicWalletAddress: address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension",
      });
      return { id: wallet.id as string, address };
    };
    const mine = await link(me.userId);
    const spare = await link(me.userId);
    const theirs = await link(rival.userId);
    const myWalletId = mine.id;
    const theirWalletId = theirs.id;

    const res = await sdkAs(me.jwt).selectUserWallet({ environmentId: t.environmentId, userWalletSelectionRequest: { walletId: myWalletId } });
    expect(decodeJwt(res.jwt!).sid).toBe(me.sessionId);
    const credentialOf = (address: string) => res.user.verifiedCredentials.find((c) => c.address?.toLowerCase() === address.toLowerCase());
    expect(credentialOf(mine.address)?.lastSelectedAt).toBeInstanceOf(Date);
    expect(credentialOf(spare.address)?.lastSelectedAt ?? null).toBeNull();
    expect(await app.db.one("SELECT count(*)::int AS n FROM audit_log WHERE action = 'wallet.selected' AND resource_id = $1", [myWalletId])).toEqual({ n: 1 });

    for (const walletId of [theirWalletId, randomUUID()]) {
      const denied = await refused(sdkAs(me.jwt).selectUserWallet({ environmentId: t.environmentId, userWalletSelectionRequest: { walletId } }));
      expect(denied.status).toBe(404);
    }
    expect((await app.db.one("SELECT last_selected_at FROM wallets WHERE id = $1", [theirWalletId])).last_selected_at).toBeNull();
  });
});

describe("hardDeleteUser", () => {
  it("deletes the user for real, ends every session of it at once, audits and emits user.deleted", async () => {
    const t = await collectingTenant();
    const me = await signInAs(app, t.environmentId, `gone-${randomUUID()}@example.com`);
    const second = await signInAs(app, t.environmentId, me.email);
    expect(second.userId).toBe(me.userId);
    const other = await signInAs(app, t.environmentId);

    await sdkAs(me.jwt).hardDeleteUser({ environmentId: t.environmentId });
    expect(await userRow(me.userId)).toBeNull();
    expect((await app.db.one("SELECT count(*)::int AS n FROM sessions WHERE user_id = $1", [me.userId])).n).toBe(0);
    for (const jwt of [me.jwt, second.jwt]) expect((await refused(sdkAs(jwt).getAuthenticatedUser({ environmentId: t.environmentId }))).status).toBe(401);
    expect(await eventsOf(t.environmentId, "user.deleted", me.userId)).toHaveLength(1);
    // Others are untouched, and the email is free again.
    expect((await sdkAs(other.jwt).getAuthenticatedUser({ environmentId: t.environmentId })).id).toBe(other.userId);
    const again = await signInAs(app, t.environmentId, me.email);
    expect(again.userId).not.toBe(me.userId);
  });
});
