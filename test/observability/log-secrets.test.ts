import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { sdkFor } from "../support/sdk-client.js";
import { AuthenticatorApp } from "../support/totp-app.js";
import { TestDevice, type RoomView } from "../support/waas-device.js";
import { codeIn, startSmtpPeer } from "../e2e/support/code-peers.js";

/**
 * Nothing secret reaches the logs: the flows of the e2e suite that handle secrets run against one app at
 * log level debug, everything the process writes to stdout and stderr is captured, and the capture is
 * searched for every secret value the flows saw (API token, webhook signing secret, provider secret,
 * e-mail code, session JWTs, TOTP secret and codes, recovery codes, key shares, backups, an exported key)
 * and for what secrets look like (JWTs, token prefixes, 64-hex keys, PEM, mnemonics).
 */

let app: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let t: BootstrapResult;
const captured: string[] = [];
const secrets = new Map<string, string>(); // value -> what it is
const restore: (() => void)[] = [];

function keep(what: string, value: unknown): void {
  if (typeof value === "string" && value.length >= 6) secrets.set(value, what);
}
/** Every string of a response part that holds secrets (share sets, exported keys), long enough to be one. */
function keepAll(what: string, value: unknown): void {
  if (typeof value === "string") {
    if (value.length >= 16) secrets.set(value, what);
  } else if (value && typeof value === "object") for (const v of Object.values(value)) keepAll(what, v);
}

function capture(stream: NodeJS.WriteStream): void {
  const original = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof stream.write;
  restore.push(() => (stream.write = original));
}

beforeAll(async () => {
  capture(process.stdout);
  capture(process.stderr);
  smtp = await startSmtpPeer();
  app = await startTestApp({ logLevel: "debug", verifications: { ...DEFAULT_VERIFICATION_SETTINGS, smtpUrl: smtp.url, mailFrom: "Acme <codes@acme.example>" } });
  t = await app.bootstrap({ ownerEmail: `log-secrets-${randomUUID()}@example.com` });
  keep("bootstrap API token", t.token);
  keep("bootstrap member token", t.memberToken);
  const mfa = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, { token: t.token, body: { security: { mfa: { enabled: true, required: false } } } });
  expect(mfa.status, mfa.text).toBe(200);
}, 120_000);
afterAll(async () => {
  for (const r of restore.splice(0)) r();
  await app?.stop();
  await smtp?.close();
});

const manage = async (method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
};

describe("the secret-handling flows", () => {
  it("management: an API token, a webhook's signing secret and its rotation, a provider's client secret", async () => {
    const created = await manage("POST", `/environments/${t.environmentId}/tokens`, { note: "log secrets" });
    const token = created.token.rawToken as string;
    expect(token).toMatch(/^sgl_/);
    keep("created API token", token);
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users`, { token })).status).toBe(200);
    // A wrong token is refused and logged as a 401, without the token.
    const wrong = `sgl_${"ab".repeat(32)}`;
    keep("wrong API token", wrong);
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/users`, { token: wrong })).status).toBe(401);
    const hook = await manage("POST", `/environments/${t.environmentId}/webhooks`, { url: "http://127.0.0.1:9/hooks", events: ["user.created"] });
    keep("webhook secret", hook.secret);
    const rotated = await manage("POST", `/environments/${t.environmentId}/webhooks/${hook.webhookId ?? hook.id}/secret/rotate`, {});
    keep("rotated webhook secret", rotated.secret);
    const clientSecret = `sms-auth-${randomUUID()}`;
    keep("provider client secret", clientSecret);
    await manage("POST", `/environments/${t.environmentId}/settings/providers`, { provider: "sms", accountSid: "AC0123456789", smsNumber: "+15005550006", clientSecret });
  });

  let jwt = "";
  it("sign-in: an e-mail code, the session JWT, its refresh, TOTP enrolment, passcodes and recovery codes", async () => {
    const email = `secret-user-${randomUUID()}@example.com`;
    const before = smtp.countTo(email);
    const created = await sdkFor(app.baseUrl).createEmailVerification({ environmentId: t.environmentId, emailVerificationCreateRequest: { email } });
    const code = codeIn((await smtp.mailTo(email, before)).parsed.text ?? "");
    keep("e-mail code", code);
    // A wrong code first: the refusal is logged, the code it was compared to is not.
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    await sdkFor(app.baseUrl)
      .signInWithEmailVerification({ environmentId: t.environmentId, emailVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken: wrong } })
      .catch(() => undefined);
    const signedIn = await sdkFor(app.baseUrl).signInWithEmailVerification({
      environmentId: t.environmentId,
      emailVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken: code },
    });
    jwt = signedIn.jwt!;
    keep("session JWT", jwt);
    keep("minified JWT", (signedIn as { minifiedJwt?: string }).minifiedJwt);
    const refreshed = await sdkFor(app.baseUrl, jwt).refreshAuth({ environmentId: t.environmentId });
    keep("refreshed JWT", refreshed.jwt);
    jwt = refreshed.jwt!;

    const client = sdkFor(app.baseUrl, jwt);
    const reg = await client.registerTotpMfaDevice({ environmentId: t.environmentId });
    keep("TOTP secret", reg.secret);
    const phone = new AuthenticatorApp(reg.secret);
    const first = phone.next();
    keep("TOTP code", first);
    await client.registerTotpMfaDeviceVerify({ environmentId: t.environmentId, mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: first } });
    const passed = await client.authMfaTotpDevice({ environmentId: t.environmentId, mFAAuthTotpDevicePostRequest: { code: phone.lastCode() } });
    keep("MFA-passed JWT", passed.jwt);
    jwt = passed.jwt!;
    const recovery = await sdkFor(app.baseUrl, jwt).getRecoveryCodes({ environmentId: t.environmentId });
    for (const c of recovery.recoveryCodes) keep("recovery code", c);
  });

  it("wallets: key generation shares, a backup of the device's shares, signing, and a private key export", async () => {
    const env = t.environmentId;
    const sdk = sdkFor(app.baseUrl, jwt);
    const passcode = `pass-${randomUUID()}`;
    keep("wallet passcode", passcode);
    const device = new TestDevice(passcode);
    const opened = await sdk.createWaasAccount({
      environmentId: env,
      createWaasAccountRequest: { chain: "EVM" as never, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" as never },
    });
    const room = async (roomId: string) => (await call(app.baseUrl, "GET", `/sdk/${env}/waas/rooms/${roomId}`, { token: jwt })).body as RoomView;
    const keygen = await room(opened.roomId);
    expect(keygen.status, JSON.stringify(keygen)).toBe("done");
    keepAll("encrypted key share", keygen.result!.shareSet.encryptedShares);
    await device.receive(keygen.result!.shareSet);
    for (const c of device.backupCredentials()) keep("share backup", c);
    await sdk.backupKeyShares({
      environmentId: env,
      walletId: opened.walletId!,
      backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: device.backupCredentials(), passwordEncrypted: true },
    });
    const recovered = await sdk.recoverKeyShares({ environmentId: env, walletId: opened.walletId!, recoverMultipleClientKeySharesRequest: {} });
    keepAll("recovered share backup", recovered);

    const exportId = `exp-${randomUUID()}`;
    const exportRoom = await sdk.exportPrivateKey({ environmentId: env, walletId: opened.walletId!, exportWaasWalletPrivateKeyRequest: { exportId } });
    const oneTime = TestDevice.exportKey();
    const done = await call(app.baseUrl, "POST", `/sdk/${env}/waas/rooms/${exportRoom.roomId}/contribution`, {
      token: jwt,
      body: { contribution: { ...(await device.sharesContribution(await room(exportRoom.roomId))), exportKey: oneTime.publicJwk } },
    });
    expect(done.status, done.text).toBe(200);
    keepAll("encrypted exported key", done.body.result.encryptedKey);
    const exported = await oneTime.open(done.body.result.encryptedKey);
    keep("exported private key", exported.privateKey);
    keep("exported private key (0x)", `0x${exported.privateKey}`);
    expect(privateKeyToAccount(`0x${exported.privateKey}`).address).toBe(keygen.result!.address);
  });
});

describe("the captured logs", () => {
  it("were written at debug level (the capture saw the requests, refusals included)", () => {
    expect(app.config.logLevel).toBe("debug");
    const text = captured.join("");
    expect(text).toContain('"msg":"http"');
    expect(text).toContain('"status":401');
  });

  it("hold none of the secret values the flows saw", () => {
    expect(secrets.size).toBeGreaterThan(15);
    const text = captured.join("");
    const leaked = [...secrets].filter(([value]) => text.includes(value)).map(([value, what]) => `${what}: ${value.slice(0, 12)}…`);
    expect(leaked).toEqual([]);
  });

  it("hold nothing shaped like a secret", () => {
    const text = captured.join("");
    const shapes: [string, RegExp][] = [
      ["JWT", /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}/],
      ["API token", /\bsgl_[0-9a-f]{16,}/],
      ["webhook secret", /\bwhsec_[A-Za-z0-9+/=]{16,}/],
      ["64-hex key", /(?<![0-9a-f])(?:0x)?[0-9a-f]{64}(?![0-9a-f])/i],
      ["PEM", /-----BEGIN [A-Z ]+-----/],
      ["mnemonic", /\b(?:[a-z]{3,8} ){11,23}[a-z]{3,8}\b/],
      ["bearer header", /bearer [A-Za-z0-9._-]{16,}/i],
    ];
    const found = shapes.filter(([, re]) => re.test(text)).map(([what, re]) => `${what}: ${text.match(re)![0].slice(0, 24)}…`);
    expect(found).toEqual([]);
  });
});
