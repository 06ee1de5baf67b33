import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import type { Browser, Page } from "puppeteer-core";
import { getAddress, recoverMessageAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemo } from "../../scripts/build-demo.js";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { launchChromium } from "../support/chromium.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { AuthenticatorApp } from "../support/totp-app.js";
import { codeIn } from "./support/code-peers.js";

/**
 * The demo client app (demo/, served at /demo) in a real browser: Debian's Chromium, headless, driven by
 * puppeteer-core. A person's steps, by clicking: sign in with a browser wallet (an EIP-1193 provider injected
 * into the page, backed by a viem account here), sign out, sign in with an e-mail code read from the dev
 * mailbox as a developer reads it, enrol a TOTP authenticator, pass it at the next sign-in, create a threshold
 * wallet (the page runs the device's share of the protocol) and sign a message, sign out. Each step is
 * checked on the page and on the service (management API, signature recovery), and screenshotted to
 * test-results/demo/. The attacker's view: no JWT in any URL, cookie or storage, and signing out revokes.
 */

const SHOTS = path.resolve(import.meta.dirname, "../../test-results/demo");

let app: TestApp;
let tenant: BootstrapResult;
let dataDir: string;
let browser: Browser;
let page: Page;
/** Every URL the page requested, and every session JWT the service answered it. */
const requested: string[] = [];
const jwts: string[] = [];
const wallet = privateKeyToAccount(generatePrivateKey());
const email = `demo-${randomUUID()}@example.com`;
let authenticator: AuthenticatorApp;
let userId: string;

beforeAll(async () => {
  await buildDemo();
  await mkdir(SHOTS, { recursive: true });
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-demo-"));
  // The dev mailbox, as under npm start: no SMTP server, mails are files under <dataDir>/mailbox.
  app = await startTestApp({ dataDir, verifications: DEFAULT_VERIFICATION_SETTINGS });
  tenant = await app.bootstrap({ ownerEmail: `demo-owner-${randomUUID()}@example.com` });
  // Second factors on (asked of users who enrolled one), and the page's origin registered: wallet sign-in
  // messages must then name it.
  const mfa = await call(app.baseUrl, "PUT", `/environments/${tenant.environmentId}`, {
    token: tenant.token,
    body: { security: { mfa: { enabled: true, required: false, methods: [{ type: "totp", enabled: true }] } } },
  });
  expect(mfa.status, mfa.text).toBe(200);
  const origin = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/origins`, { token: tenant.token, body: { origin: app.baseUrl } });
  expect(origin.status, origin.text).toBe(201);

  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 900 });
  page.on("request", (r) => void requested.push(r.url()));
  page.on("response", (r) => {
    if (r.request().method() !== "POST" || !/\/(verify|emailVerifications\/signin|mfa\/auth\/totp)$/.test(new URL(r.url()).pathname)) return;
    void r.json().then((b: { jwt?: string }) => b.jwt && jwts.push(b.jwt), () => undefined);
  });
  // The browser wallet: an EIP-1193 provider whose keys stay in this process (as an extension's stay in it).
  await page.exposeFunction("sigilTestWallet", async (method: string, params: unknown[]) => {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return [wallet.address];
      case "eth_chainId":
        return "0x1";
      case "personal_sign":
        expect(getAddress(params[1] as string)).toBe(wallet.address);
        return wallet.signMessage({ message: { raw: params[0] as Hex } });
      default:
        throw new Error(`the test wallet does not do ${method}`);
    }
  });
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as { sigilTestWallet(method: string, params: unknown[]): Promise<unknown> };
    (window as unknown as { ethereum: unknown }).ethereum = {
      request: ({ method, params }: { method: string; params?: unknown[] }) => w.sigilTestWallet(method, params ?? []),
    };
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const visible = (id: string) => page.waitForSelector(`#${id}`, { visible: true, timeout: 20_000 });
const hidden = (id: string) => page.waitForSelector(`#${id}`, { hidden: true, timeout: 20_000 });
const textOf = (id: string) => page.$eval(`#${id}`, (el) => el.textContent ?? "");
async function fill(id: string, text: string) {
  await page.$eval(`#${id}`, (el) => ((el as HTMLInputElement).value = ""));
  await page.type(`#${id}`, text);
}
/** Waits until the element's text matches (a failed step shows its error in the card's status line instead). */
async function textMatches(id: string, re: RegExp) {
  try {
    await page.waitForFunction((i: string, src: string) => new RegExp(src).test(document.getElementById(i)?.textContent ?? ""), { timeout: 20_000 }, id, re.source);
  } catch (err) {
    const statuses = await page.$$eval(".status", (els) => els.map((e) => e.textContent).filter(Boolean));
    throw new Error(`#${id} never matched ${re}: ${JSON.stringify(await textOf(id))}; the page says ${JSON.stringify(statuses)}`, { cause: err });
  }
}

/** The newest mail to `to` in the dev mailbox, after the `before` files already there: its code. */
async function mailedCode(to: string, before: number): Promise<string> {
  const dir = path.join(dataDir, "mailbox");
  const files = await waitFor(`a mail to ${to} in the dev mailbox`, async () => {
    const all = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith(".eml")).sort() : [];
    return all.length > before ? all : undefined;
  });
  const mail = await simpleParser(await readFile(path.join(dir, files.at(-1)!)));
  expect(mail.to && "text" in mail.to ? mail.to.text : "").toBe(to);
  return codeIn(mail.text ?? "");
}
const mailCount = async () => (existsSync(path.join(dataDir, "mailbox")) ? (await readdir(path.join(dataDir, "mailbox"))).length : 0);

async function managedUser(id: string) {
  const r = await call(app.baseUrl, "GET", `/environments/${tenant.environmentId}/users/${id}`, { token: tenant.token });
  expect(r.status, r.text).toBe(200);
  return r.body.user as { id: string; verifiedCredentials: { format: string; address?: string; email?: string }[] };
}

async function signInByEmail(opts: { wrongCodeFirst?: boolean } = {}) {
  await fill("email", email);
  const before = await mailCount();
  await page.click("#send-code");
  await textMatches("sign-in-status", /A code was sent/);
  const code = await mailedCode(email, before);
  if (opts.wrongCodeFirst) {
    // A mistyped code: the page shows the service's error and stays where it is.
    await fill("email-code", code.slice(0, 5) + ((Number(code[5]) + 1) % 10));
    await page.click("#email-sign-in");
    await textMatches("sign-in-status", /\(422 invalid_verification_code\)/);
    expect(await page.$eval("#session-card", (el) => (el as HTMLElement).hidden)).toBe(true);
    await shot("04a-wrong-code");
  }
  await fill("email-code", code);
  await page.click("#email-sign-in");
  await visible("session-card");
}

/** Signs out on the page; the JWT it held now answers 401 on the service. */
async function signOutRevokes() {
  const jwt = jwts.at(-1)!;
  expect((await call(app.baseUrl, "GET", `/sdk/${tenant.environmentId}/session`, { token: jwt })).status).toBe(204);
  await page.click("#sign-out");
  await visible("sign-in-card");
  await textMatches("sign-in-status", /Signed out/);
  const after = await call(app.baseUrl, "GET", `/sdk/${tenant.environmentId}/session`, { token: jwt });
  expect(after.status).toBe(401);
  expect(after.body.code).toBe("invalid_session");
  expect(await page.$eval("#session-card", (el) => (el as HTMLElement).hidden)).toBe(true);
}

describe("the demo page in Chromium", () => {
  it("opens at /demo with the environment from the query, and says where an environment id comes from", async () => {
    const res = await page.goto(`${app.baseUrl}/demo?environmentId=${tenant.environmentId}`);
    // /demo redirects to /demo/ keeping the query.
    expect(res?.url()).toBe(`${app.baseUrl}/demo/?environmentId=${tenant.environmentId}`);
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await textMatches("env-status", new RegExp(`Using environment ${tenant.environmentId}`));
    await visible("sign-in-card");
    expect(await page.$eval("#environment-card", (el) => el.textContent)).toContain("npx sigil bootstrap --json");
    await shot("01-start");
  });

  it("signs in with the browser wallet (SIWE naming this page), shows the session, signs out for real", async () => {
    await page.click("#wallet-sign-in");
    await visible("session-card");
    await textMatches("credentials", new RegExp(wallet.address, "i"));
    userId = await textOf("user-id");
    const user = await managedUser(userId);
    expect(user.verifiedCredentials.some((c) => c.format === "blockchain" && c.address?.toLowerCase() === wallet.address.toLowerCase())).toBe(true);
    await shot("02-wallet-signed-in");
    await signOutRevokes();
    await shot("03-signed-out");
  });

  it("signs in with an e-mail code from the dev mailbox and enrols a TOTP authenticator", async () => {
    await signInByEmail({ wrongCodeFirst: true });
    await textMatches("credentials", new RegExp(`email: ${email}`));
    userId = await textOf("user-id");
    expect((await managedUser(userId)).verifiedCredentials.some((c) => c.format === "email" && c.email === email)).toBe(true);
    await visible("totp-enrol-box");
    await shot("04-email-signed-in");

    await page.click("#totp-enrol");
    await visible("totp-new");
    const secret = await textOf("totp-secret");
    expect(await textOf("totp-uri")).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    authenticator = new AuthenticatorApp(secret);
    await shot("05-totp-enrol");
    await fill("totp-code", authenticator.next());
    await page.click("#totp-confirm");
    await visible("totp-done");
    const methods = await call(app.baseUrl, "GET", `/sdk/${tenant.environmentId}/users/mfa/methods`, { token: jwts.at(-1) });
    expect(methods.body.devices).toEqual([expect.objectContaining({ type: "totp", verified: true })]);
    await shot("06-totp-enrolled");
    await signOutRevokes();
  });

  it("asks the TOTP code at the next sign-in; with it, creates a threshold wallet and signs a message", async () => {
    await signInByEmail();
    // The session owes its factor: the page asks for it and offers nothing else.
    await visible("mfa-pass");
    expect(await textOf("scope")).toBe("requiresAdditionalAuth");
    await hidden("wallet-card");
    await shot("07-mfa-required");
    await fill("mfa-code", authenticator.next());
    await page.click("#mfa-verify");
    await textMatches("mfa-status", /Second factor passed/);
    await visible("wallet-card");
    expect(await textOf("scope")).not.toContain("requiresAdditionalAuth");

    await page.click("#wallet-create");
    await visible("wallet-info");
    const address = await textOf("wallet-address");
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await textMatches("credentials", new RegExp(address, "i"));
    // The service holds the wallet as the user's credential.
    expect((await managedUser(userId)).verifiedCredentials.some((c) => c.address?.toLowerCase() === address.toLowerCase())).toBe(true);
    await shot("08-wallet-created");

    const message = `Hello from the demo ${randomUUID()}`;
    await fill("sign-message", message);
    await page.click("#sign");
    await visible("signature-info");
    await textMatches("signature-check", /✓ recovers to the wallet's address/);
    const signature = (await textOf("signature")) as Hex;
    // Checked here too, not only by the page: the threshold signature recovers to the wallet's address.
    expect(await recoverMessageAddress({ message, signature })).toBe(getAddress(address));
    await shot("09-signed");
    await signOutRevokes();
    await shot("10-signed-out");
  });

  it("never puts a session JWT in a URL, a cookie or the page's storage", async () => {
    expect(jwts.length).toBeGreaterThanOrEqual(4);
    for (const jwt of jwts) {
      for (const url of requested) expect(url).not.toContain(jwt);
      expect(page.url()).not.toContain(jwt);
    }
    const kept = await page.evaluate(() => JSON.stringify([document.cookie, { ...localStorage }, { ...sessionStorage }]));
    expect(kept).toBe(JSON.stringify(["", {}, {}]));
    expect(requested.filter((u) => u.startsWith(app.baseUrl) && !new URL(u).pathname.startsWith("/demo"))).toSatisfy((urls: string[]) =>
      urls.every((u) => new URL(u).pathname.startsWith(`/api/v0/sdk/${tenant.environmentId}/`)),
    );
  });
});
