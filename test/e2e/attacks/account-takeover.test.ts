import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { EmbeddedWalletProviderEnum, type EmbeddedWalletChainEnum } from "@dynamic-labs/sdk-api";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../../src/config.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkMfaService } from "../../../src/gen/sigil/mfa/v0/mfa_service_pb.js";
import { SdkVerificationsService } from "../../../src/gen/sigil/verifications/v0/verifications_service_pb.js";
import { SdkWalletSignInService } from "../../../src/gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { AuthenticatorApp } from "../../support/totp-app.js";
import { evmProof, newEvmWallet } from "../../support/wallet-proofs.js";
import { codeIn, startSmtpPeer } from "../support/code-peers.js";

/**
 * Account takeover through linking, transferring and merging, and through the second factor itself,
 * replayed through the published client (REST) and over gRPC:
 * - proving one credential of another user (their mailbox, their wallet's signature) is signing in as
 *   them: a merge or transfer needs their second factor (an mfaToken of theirs) and their sign-in policy;
 * - a session still owing its factor cannot enrol its own device while the user has a factor it can pass
 *   (the e-mail factor counts);
 * - the e-mail factor never accepts the address that signed the session in.
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  app = await startTestApp({ verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, mailFrom: "Acme <codes@acme.example>", sendsPerIdentifierPerMinute: 20 } });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

const TOTP_ONLY = { enabled: true, required: true, methods: [{ type: "totp", enabled: true, allowBackupCodes: true }] };
const TOTP_AND_EMAIL = {
  enabled: true,
  required: true,
  methods: [
    { type: "totp", enabled: true, allowBackupCodes: true },
    { type: "email", enabled: true },
  ],
};

async function tenantWithMfa(mfa: Record<string, unknown>): Promise<BootstrapResult> {
  const t = await app.bootstrap({ ownerEmail: `takeover-${randomUUID()}@example.com` });
  const res = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { security: { mfa } } });
  expect(res.status, res.text).toBe(200);
  return t;
}

async function manage(t: BootstrapResult, method: string, path: string, body?: unknown) {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

const scopeOf = (jwt: string) => decodeJwt(jwt).scope;
const mailbox = () => `victim-${randomUUID()}@example.com`;

/** An e-mail code as whoever reads the mailbox gets it. */
async function emailCode(env: string, email: string) {
  const before = smtp.countTo(email);
  const created = await sdkFor(app.baseUrl).createEmailVerification({ environmentId: env, emailVerificationCreateRequest: { email } });
  const mail = await smtp.mailTo(email, before);
  return { verificationUUID: created.verificationUUID, code: codeIn(mail.parsed.text ?? "") };
}

async function signInByEmail(env: string, email: string) {
  const { verificationUUID, code } = await emailCode(env, email);
  const r = await sdkFor(app.baseUrl).signInWithEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } });
  return { jwt: r.jwt!, userId: r.user.id! };
}

async function signInByWallet(env: string, wallet = newEvmWallet()) {
  const { nonce } = await sdkFor(app.baseUrl).getNonce({ environmentId: env });
  const r = await sdkFor(app.baseUrl).verify({ environmentId: env, verifyRequest: await evmProof(wallet, nonce!) });
  return { jwt: r.jwt!, userId: r.user.id!, wallet };
}

const walletProof = async (env: string, wallet: ReturnType<typeof newEvmWallet>) =>
  evmProof(wallet, (await sdkFor(app.baseUrl).getNonce({ environmentId: env })).nonce!);

/** Enrols a TOTP device with the (pending or full) session and passes it: the full session's token. */
async function enrolTotp(env: string, jwt: string) {
  const c = sdkFor(app.baseUrl, jwt);
  const reg = await c.registerTotpMfaDevice({ environmentId: env });
  const phone = new AuthenticatorApp(reg.secret);
  await c.registerTotpMfaDeviceVerify({ environmentId: env, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: phone.next() } });
  const passed = await c.authMfaTotpDevice({ environmentId: env, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } });
  expect(scopeOf(passed.jwt!)).toBe("user:basic");
  return { phone, jwt: passed.jwt! };
}

/**
 * The victim of a TOTP-required environment: signed up with their e-mail, TOTP enrolled, a linked wallet
 * and a custodial embedded wallet.
 */
async function victim(env: string) {
  const email = mailbox();
  const first = await signInByEmail(env, email);
  const { phone, jwt } = await enrolTotp(env, first.jwt);
  const wallet = newEvmWallet();
  const linked = await sdkFor(app.baseUrl, jwt).verifyLink({ environmentId: env, verifyRequest: await walletProof(env, wallet) });
  const created = await sdkFor(app.baseUrl, linked.jwt!).createEmbeddedWallets({
    environmentId: env,
    createEmbeddedWalletsRequest: { embeddedWallets: [{ chains: ["EVM" as EmbeddedWalletChainEnum], embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] },
  });
  return { email, wallet, phone, userId: first.userId, jwt: created.jwt ?? linked.jwt! };
}

/** An attacker with their own account (signed up with their wallet, TOTP enrolled): a full session. */
async function attacker(env: string) {
  const s = await signInByWallet(env);
  const { jwt, phone } = await enrolTotp(env, s.jwt);
  return { userId: s.userId, jwt, phone };
}

async function walletsOf(env: string, userId: string) {
  return app.db.map(
    "SELECT id, provider, address FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL ORDER BY id",
    [env, userId],
    (r) => `${r.provider}:${r.address}`,
  );
}
const isLive = async (env: string, userId: string) =>
  (await app.db.one("SELECT deleted_at FROM users WHERE environment_id = $1 AND id = $2", [env, userId])).deleted_at === null;

/** Links the victim's address to the attacker's session with a code read from the victim's mailbox. */
async function linkVictimEmail(env: string, jwt: string, email: string) {
  const { verificationUUID, code } = await emailCode(env, email);
  return refused(sdkFor(app.baseUrl, jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID, verificationToken: code } }));
}

/** Request options carrying an mfaToken (the client's init overrides replace its headers: the session goes too). */
const withMfaToken = (jwt: string, token: string) => ({
  headers: { Authorization: `Bearer ${jwt}`, "Content-Type": "application/json", "x-mfa-auth-token": token },
});

const grpc = () => createGrpcTransport({ baseUrl: app.baseUrl });
const grpcError = (e: unknown) => {
  const err = ConnectError.from(e);
  return { code: err.code, domain: err.metadata.get("sigil-error-code"), payload: JSON.parse(decodeURIComponent(err.metadata.get("sigil-error-payload") ?? "null")) };
};

describe("link + merge is signing in as the other user", () => {
  it("the victim's mailbox alone merges nothing in a TOTP-required environment (REST): refused, victim intact", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const before = await walletsOf(env, v.userId);
    expect(before.some((w) => w.startsWith("embeddedWallet:"))).toBe(true);
    const a = await attacker(env);

    const link = await linkVictimEmail(env, a.jwt, v.email);
    expect(link.status).toBe(422);
    expect(link.body).toMatchObject({ code: "credential_owned_by_another_user", payload: { otherUserId: v.userId, otherUserSecondFactorRequired: true } });

    const merge = await refused(sdkFor(app.baseUrl, a.jwt).mergeUsers({ environmentId: env }));
    expect(merge.status).toBe(403);
    expect(merge.body).toMatchObject({ code: "other_user_second_factor_required" });
    const verifyMerge = await refused(sdkFor(app.baseUrl, a.jwt).verifyMergeUsers({ environmentId: env, mergeUserConflictResolutions: { mergeUserResolutions: [] } }));
    expect(verifyMerge.status).toBe(403);
    // An mfaToken of the attacker's own is not the victim's factor.
    const own = await sdkFor(app.baseUrl, a.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { code: a.phone.next(), createMfaToken: { singleUse: true } },
    });
    const withOwn = await refused(sdkFor(app.baseUrl, own.jwt!).mergeUsers({ environmentId: env }, withMfaToken(own.jwt!, own.mfaToken!)));
    expect(withOwn).toMatchObject({ status: 403, body: { code: "other_user_second_factor_required" } });

    expect(await isLive(env, v.userId)).toBe(true);
    expect(await walletsOf(env, v.userId)).toEqual(before);
    expect(await walletsOf(env, a.userId)).toHaveLength(1);
  });

  it("the victim's wallet signature alone neither transfers nor merges (REST)", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const before = await walletsOf(env, v.userId);
    const a = await attacker(env);
    const client = sdkFor(app.baseUrl, a.jwt);

    const link = await refused(client.verifyLink({ environmentId: env, verifyRequest: await walletProof(env, v.wallet) }));
    expect(link).toMatchObject({ status: 422, body: { code: "credential_owned_by_another_user", payload: { otherUserSecondFactorRequired: true } } });
    const transfer = await refused(client.verifyTransfer({ environmentId: env, verifyRequest: await walletProof(env, v.wallet) }));
    expect(transfer).toMatchObject({ status: 403, body: { code: "other_user_second_factor_required" } });
    const merge = await refused(client.mergeUsers({ environmentId: env }));
    expect(merge.status).toBe(403);

    expect(await isLive(env, v.userId)).toBe(true);
    expect(await walletsOf(env, v.userId)).toEqual(before);
  });

  it("over gRPC: link by code, link by signature, transfer and merge are refused the same way", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const before = await walletsOf(env, v.userId);
    const a = await attacker(env);
    const headers = { authorization: `Bearer ${a.jwt}` };
    const wallets = createClient(SdkWalletSignInService, grpc());
    const codes = createClient(SdkVerificationsService, grpc());

    const { verificationUUID, code } = await emailCode(env, v.email);
    const link = await codes.verifyEmailVerification({ environmentId: env, verificationUuid: verificationUUID, verificationToken: code }, { headers }).catch(grpcError);
    expect(link).toMatchObject({ code: Code.FailedPrecondition, domain: "credential_owned_by_another_user", payload: { otherUserSecondFactorRequired: true } });
    const merge = await wallets.mergeUsers({ environmentId: env }, { headers }).catch(grpcError);
    expect(merge).toMatchObject({ code: Code.PermissionDenied, domain: "other_user_second_factor_required" });

    const proof = await walletProof(env, v.wallet);
    const linkWallet = await wallets.verifyLink({ environmentId: env, proof }, { headers }).catch(grpcError);
    expect(linkWallet).toMatchObject({ code: Code.FailedPrecondition, domain: "credential_owned_by_another_user" });
    const transfer = await wallets.verifyTransfer({ environmentId: env, proof: await walletProof(env, v.wallet) }, { headers }).catch(grpcError);
    expect(transfer).toMatchObject({ code: Code.PermissionDenied, domain: "other_user_second_factor_required" });
    const verifyMerge = await wallets.verifyMergeUsers({ environmentId: env }, { headers }).catch(grpcError);
    expect(verifyMerge).toMatchObject({ code: Code.PermissionDenied, domain: "other_user_second_factor_required" });

    expect(await isLive(env, v.userId)).toBe(true);
    expect(await walletsOf(env, v.userId)).toEqual(before);
  });

  it("with an mfaToken the other user made after passing their own factor, the merge happens; a token of anyone else does not do", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const vWallets = await walletsOf(env, v.userId);
    const a = await attacker(env);
    const client = sdkFor(app.baseUrl, a.jwt);
    expect((await linkVictimEmail(env, a.jwt, v.email)).status).toBe(422);

    // A forged token is refused; the pending merge survives the refusal.
    const forged = await refused(client.mergeUsers({ environmentId: env }, withMfaToken(a.jwt, "mfa_forged")));
    expect(forged).toMatchObject({ status: 403, body: { code: "other_user_second_factor_required" } });

    // The other user (the same person's second account) signs in, passes their TOTP and makes a token.
    const vs = await signInByEmail(env, v.email);
    const step = await sdkFor(app.baseUrl, vs.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { code: v.phone.next(), createMfaToken: { singleUse: true } },
    });
    const merged = await client.mergeUsers({ environmentId: env }, withMfaToken(a.jwt, step.mfaToken!));
    expect(merged.user.id).toBe(a.userId);
    expect(await isLive(env, v.userId)).toBe(false);
    expect(await walletsOf(env, a.userId)).toEqual(expect.arrayContaining(vWallets));
  });

  it("a transfer with the other user's mfaToken moves that one wallet and spends the token", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const a = await attacker(env);
    const client = sdkFor(app.baseUrl, a.jwt);
    const vs = await signInByEmail(env, v.email);
    const step = await sdkFor(app.baseUrl, vs.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { code: v.phone.next(), createMfaToken: { singleUse: false } },
    });
    const moved = await client.verifyTransfer({ environmentId: env, verifyRequest: await walletProof(env, v.wallet) }, withMfaToken(a.jwt, step.mfaToken!));
    expect(moved.user.verifiedCredentials?.map((c) => c.address)).toContain(v.wallet.address);
    expect(await isLive(env, v.userId)).toBe(true);
    expect((await walletsOf(env, v.userId)).some((w) => w.startsWith("embeddedWallet:"))).toBe(true);
    // Spent, even though it was made for more than one use: it does not merge the rest of the account.
    expect((await linkVictimEmail(env, a.jwt, v.email)).status).toBe(422);
    const merge = await refused(client.mergeUsers({ environmentId: env }, withMfaToken(a.jwt, step.mfaToken!)));
    expect(merge).toMatchObject({ status: 403, body: { code: "other_user_second_factor_required" } });
    expect(await isLive(env, v.userId)).toBe(true);
  });

  it("two merges at once with one pending proof and one token: exactly one happens", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const a = await attacker(env);
    const client = sdkFor(app.baseUrl, a.jwt);
    expect((await linkVictimEmail(env, a.jwt, v.email)).status).toBe(422);
    const vs = await signInByEmail(env, v.email);
    const step = await sdkFor(app.baseUrl, vs.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { code: v.phone.next(), createMfaToken: { singleUse: false } },
    });
    const init = withMfaToken(a.jwt, step.mfaToken!);
    const results = await Promise.allSettled([client.mergeUsers({ environmentId: env }, init), client.mergeUsers({ environmentId: env }, init)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect([403, 422]).toContain((loser.reason as Response).status);
    expect(await isLive(env, v.userId)).toBe(false);
  });

  it("the other user's sign-in policy decides too: a blocked address is not linked, merged or remembered", async () => {
    const t = await tenantWithMfa({ enabled: false });
    const env = t.environmentId;
    const v = await signInByWallet(env);
    const email = mailbox();
    const withMail = await sdkFor(app.baseUrl, v.jwt);
    const c = await emailCode(env, email);
    await withMail.verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } });
    const a = await signInByWallet(env);

    // No MFA: the mailbox is a sign-in of the victim, and the merge is offered.
    const list = await manage(t, "POST", `/environments/${env}/allowlists`, { name: "blocked", outcome: "block" });
    await manage(t, "POST", `/allowlists/${list.id}/entries`, { email });
    await manage(t, "PUT", `/allowlists/${list.id}/enable`);
    const link = await linkVictimEmail(env, a.jwt, email);
    expect(link).toMatchObject({ status: 403, body: { code: "blocked_by_allowlist" } });
    const merge = await refused(sdkFor(app.baseUrl, a.jwt).mergeUsers({ environmentId: env }));
    expect(merge).toMatchObject({ status: 422, body: { code: "no_pending_merge" } });
    expect(await isLive(env, v.userId)).toBe(true);
  });

  it("over gRPC: a blocked address is refused; with the other user's mfaToken in the metadata the merge happens", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const v = await victim(env);
    const a = await attacker(env);
    const headers = { authorization: `Bearer ${a.jwt}` };
    const codes = createClient(SdkVerificationsService, grpc());
    const wallets = createClient(SdkWalletSignInService, grpc());

    const list = await manage(t, "POST", `/environments/${env}/allowlists`, { name: "blocked", outcome: "block" });
    await manage(t, "POST", `/allowlists/${list.id}/entries`, { email: v.email });
    await manage(t, "PUT", `/allowlists/${list.id}/enable`);
    const blocked = await emailCode(env, v.email);
    const refusedLink = await codes
      .verifyEmailVerification({ environmentId: env, verificationUuid: blocked.verificationUUID, verificationToken: blocked.code }, { headers })
      .catch(grpcError);
    expect(refusedLink).toMatchObject({ code: Code.PermissionDenied, domain: "blocked_by_allowlist" });
    expect(await wallets.mergeUsers({ environmentId: env }, { headers }).catch(grpcError)).toMatchObject({ domain: "no_pending_merge" });
    await manage(t, "PUT", `/allowlists/${list.id}/disable`);

    const c = await emailCode(env, v.email);
    const link = await codes.verifyEmailVerification({ environmentId: env, verificationUuid: c.verificationUUID, verificationToken: c.code }, { headers }).catch(grpcError);
    expect(link).toMatchObject({ domain: "credential_owned_by_another_user" });
    const vs = await signInByEmail(env, v.email);
    const step = await sdkFor(app.baseUrl, vs.jwt).authMfaTotpDevice({
      environmentId: env,
      mFAAuthTotpDevicePostRequest: { code: v.phone.next(), createMfaToken: { singleUse: true } },
    });
    const merged = await wallets.mergeUsers({ environmentId: env }, { headers: { ...headers, "x-mfa-auth-token": step.mfaToken! } });
    expect(merged.signIn?.user?.id).toBe(a.userId);
    expect(await isLive(env, v.userId)).toBe(false);
  });

  it("a policy that changes after the link is checked again at the merge", async () => {
    const t = await tenantWithMfa({ enabled: false });
    const env = t.environmentId;
    const email = mailbox();
    const v = await signInByEmail(env, email);
    const a = await signInByWallet(env);
    const link = await linkVictimEmail(env, a.jwt, email);
    expect(link).toMatchObject({ status: 422, body: { code: "credential_owned_by_another_user", payload: { merge: true } } });
    const list = await manage(t, "POST", `/environments/${env}/allowlists`, { name: "blocked", outcome: "block" });
    await manage(t, "POST", `/allowlists/${list.id}/entries`, { email });
    await manage(t, "PUT", `/allowlists/${list.id}/enable`);
    const merge = await refused(sdkFor(app.baseUrl, a.jwt).mergeUsers({ environmentId: env }));
    expect(merge).toMatchObject({ status: 403, body: { code: "blocked_by_allowlist" } });
    expect(await isLive(env, v.userId)).toBe(true);
  });

  it("MFA turned on after the link is checked again at the merge", async () => {
    const t = await tenantWithMfa({ enabled: false });
    const env = t.environmentId;
    const email = mailbox();
    const v = await signInByEmail(env, email);
    const a = await signInByWallet(env);
    expect((await linkVictimEmail(env, a.jwt, email)).body).toMatchObject({ payload: { merge: true, otherUserSecondFactorRequired: false } });
    await manage(t, "PUT", `/environments/${env}`, { security: { mfa: TOTP_ONLY } });
    const merge = await refused(sdkFor(app.baseUrl, a.jwt).mergeUsers({ environmentId: env }));
    expect(merge).toMatchObject({ status: 403, body: { code: "other_user_second_factor_required" } });
    expect(await isLive(env, v.userId)).toBe(true);
  });

  it("a session still owing its own factor cannot link, transfer or merge", async () => {
    const t = await tenantWithMfa(TOTP_ONLY);
    const env = t.environmentId;
    const pending = await signInByWallet(env);
    expect(scopeOf(pending.jwt)).toBe("requiresAdditionalAuth");
    const client = sdkFor(app.baseUrl, pending.jwt);
    const other = newEvmWallet();
    expect(await refused(client.verifyLink({ environmentId: env, verifyRequest: await walletProof(env, other) }))).toMatchObject({ status: 403, body: { code: "mfa_required" } });
    expect(await refused(client.verifyTransfer({ environmentId: env, verifyRequest: await walletProof(env, other) }))).toMatchObject({ status: 403 });
    expect(await refused(client.mergeUsers({ environmentId: env }))).toMatchObject({ status: 403, body: { code: "mfa_required" } });
    const c = await emailCode(env, mailbox());
    const viaCode = await refused(client.verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } }));
    expect(viaCode).toMatchObject({ status: 403, body: { code: "mfa_required" } });
  });
});

describe("the e-mail factor counts as enrolled", () => {
  /** A user of a TOTP + e-mail environment with an e-mail (their factor) and a wallet, who passed by e-mail. */
  async function emailFactorUser(env: string) {
    const email = mailbox();
    const wallet = newEvmWallet();
    const first = await signInByWallet(env, wallet);
    expect(scopeOf(first.jwt)).toBe("requiresAdditionalAuth");
    // No factor yet: the first device (here the e-mail, linked by the full session after TOTP) is enrolled.
    const { jwt } = await enrolTotp(env, first.jwt);
    const c = await emailCode(env, email);
    await sdkFor(app.baseUrl, jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } });
    // The TOTP device goes: the user's one factor is now the e-mail.
    await app.db.none("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2", [env, first.userId]);
    return { email, wallet, userId: first.userId };
  }

  it("a session of another first factor (the linked wallet) owes the e-mail factor and cannot enrol its own TOTP device (REST)", async () => {
    const t = await tenantWithMfa(TOTP_AND_EMAIL);
    const env = t.environmentId;
    const u = await emailFactorUser(env);
    const s = await signInByWallet(env, u.wallet);
    expect(scopeOf(s.jwt)).toBe("requiresAdditionalAuth");
    const client = sdkFor(app.baseUrl, s.jwt);
    const reg = await refused(client.registerTotpMfaDevice({ environmentId: env }));
    expect(reg).toMatchObject({ status: 403, body: { code: "mfa_required" } });
    const methods = await client.getUserMfaMethods({ environmentId: env });
    expect(methods.userHasVerifiedMfaMethods).toBe(true);
    // The e-mail passes it.
    const c = await emailCode(env, u.email);
    const passed = await client.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } });
    expect(scopeOf(passed.jwt!)).toBe("user:basic");
    expect(await app.db.any("SELECT 1 FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2", [env, u.userId])).toHaveLength(0);
  });

  it("over gRPC: the pending session cannot enrol", async () => {
    const t = await tenantWithMfa(TOTP_AND_EMAIL);
    const env = t.environmentId;
    const u = await emailFactorUser(env);
    const s = await signInByWallet(env, u.wallet);
    const mfa = createClient(SdkMfaService, grpc());
    const r = await mfa.registerTotpMfaDevice({ environmentId: env }, { headers: { authorization: `Bearer ${s.jwt}` } }).catch(grpcError);
    expect(r).toMatchObject({ code: Code.PermissionDenied, domain: "mfa_required" });
  });

  it("MFA optional: a sign-in of another first factor owes the e-mail factor the user has", async () => {
    const t = await tenantWithMfa({ ...TOTP_AND_EMAIL, required: false });
    const env = t.environmentId;
    const wallet = newEvmWallet();
    const first = await signInByWallet(env, wallet);
    expect(scopeOf(first.jwt)).toBe("user:basic");
    const email = mailbox();
    const c = await emailCode(env, email);
    await sdkFor(app.baseUrl, first.jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } });
    expect(scopeOf((await signInByWallet(env, wallet)).jwt)).toBe("requiresAdditionalAuth");
    // The address itself signs in without a factor it could pass (the address is not one for its own sign-in).
    expect(scopeOf((await signInByEmail(env, email)).jwt)).toBe("user:basic");
  });
});

describe("the e-mail factor is never the address that signed the session in", () => {
  it("refused (REST and gRPC); another verified address passes", async () => {
    const t = await tenantWithMfa(TOTP_AND_EMAIL);
    const env = t.environmentId;
    // A user with two addresses: signed up with the first, TOTP enrolled, second linked, TOTP removed.
    const first = mailbox();
    const second = mailbox();
    const s0 = await signInByEmail(env, first);
    const { jwt } = await enrolTotp(env, s0.jwt);
    const c0 = await emailCode(env, second);
    await sdkFor(app.baseUrl, jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c0.verificationUUID, verificationToken: c0.code } });
    await app.db.none("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2", [env, s0.userId]);

    const s = await signInByEmail(env, first);
    expect(scopeOf(s.jwt)).toBe("requiresAdditionalAuth");
    const client = sdkFor(app.baseUrl, s.jwt);
    const same = await emailCode(env, first);
    const r = await refused(client.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: same.verificationUUID, verificationToken: same.code } }));
    expect(r).toMatchObject({ status: 422, body: { code: "email_factor_is_first_factor" } });
    const mfa = createClient(SdkMfaService, grpc());
    const again = await emailCode(env, first);
    const g = await mfa
      .authenticateMfaEmail({ environmentId: env, verificationUuid: again.verificationUUID, verificationToken: again.code }, { headers: { authorization: `Bearer ${s.jwt}` } })
      .catch(grpcError);
    expect(g).toMatchObject({ code: Code.FailedPrecondition, domain: "email_factor_is_first_factor" });
    // Nor can it enrol: the user has a factor (the second address).
    expect(await refused(client.registerTotpMfaDevice({ environmentId: env }))).toMatchObject({ status: 403, body: { code: "mfa_required" } });
    const other = await emailCode(env, second);
    const passed = await client.authenticateMfaEmail({ environmentId: env, emailVerificationMfaRequest: { verificationUUID: other.verificationUUID, verificationToken: other.code } });
    expect(scopeOf(passed.jwt!)).toBe("user:basic");
  });

  it("the address that is a user's factor for their other sign-ins cannot enrol a device for itself: 403 no_usable_second_factor", async () => {
    const t = await tenantWithMfa(TOTP_AND_EMAIL);
    const env = t.environmentId;
    // Signed up with a wallet, e-mail linked: the e-mail is the factor of wallet sign-ins.
    const wallet = newEvmWallet();
    const first = await signInByWallet(env, wallet);
    const { jwt } = await enrolTotp(env, first.jwt);
    const email = mailbox();
    const c = await emailCode(env, email);
    await sdkFor(app.baseUrl, jwt).verifyEmailVerification({ environmentId: env, emailVerificationVerifyRequest: { verificationUUID: c.verificationUUID, verificationToken: c.code } });
    await app.db.none("DELETE FROM user_mfa_devices WHERE environment_id = $1 AND user_id = $2", [env, first.userId]);

    // Whoever holds only the mailbox: pending, nothing to pass, nothing to enrol.
    const s = await signInByEmail(env, email);
    expect(s.userId).toBe(first.userId);
    const r = await refused(sdkFor(app.baseUrl, s.jwt).registerTotpMfaDevice({ environmentId: env }));
    expect(r).toMatchObject({ status: 403, body: { code: "no_usable_second_factor" } });
  });

  it("a user whose only credential is their address enrols their first device with it (nothing else to protect)", async () => {
    const t = await tenantWithMfa(TOTP_AND_EMAIL);
    const env = t.environmentId;
    const s = await signInByEmail(env, mailbox());
    expect(scopeOf(s.jwt)).toBe("requiresAdditionalAuth");
    await enrolTotp(env, s.jwt);
  });
});
