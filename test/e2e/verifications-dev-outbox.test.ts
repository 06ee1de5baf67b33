import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Configuration, SDKApi } from "@dynamic-labs/sdk-api";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFICATION_SETTINGS } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { createMailer } from "../../src/messaging/mail.js";
import { createSmsSender } from "../../src/messaging/sms.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { codeIn } from "./support/code-peers.js";

/**
 * Without SIGIL_SMTP_URL and SIGIL_SMS_API_URL (the embedded default), codes go to files under the data
 * directory that a developer reads; the log names the file and never carries the code.
 */

const newEmail = () => `user-${randomUUID()}@example.com`;

describe("dev mailbox and SMS outbox (SIGIL_SMTP_URL and SIGIL_SMS_API_URL unset)", () => {
  let dev: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "sigil-mailbox-"));
    dev = await startTestApp({ dataDir, verifications: DEFAULT_VERIFICATION_SETTINGS });
  }, 60_000);
  afterAll(async () => {
    await dev?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("writes each mail as an .eml file under <dataDir>/mailbox; its code signs in", async () => {
    const tenant = await dev.bootstrap({ ownerEmail: `codes-dev-${randomUUID()}@example.com` });
    const client = new SDKApi(new Configuration({ basePath: `${dev.baseUrl}/api/v0` }));
    const email = newEmail();
    const created = await client.createEmailVerification({ environmentId: tenant.environmentId, emailVerificationCreateRequest: { email } });
    const files = (await readdir(path.join(dataDir, "mailbox"))).filter((f) => f.endsWith(".eml"));
    expect(files).toHaveLength(1);
    const mail = await simpleParser(await readFile(path.join(dataDir, "mailbox", files[0]!)));
    expect(mail.to && "text" in mail.to ? mail.to.text : "").toBe(email);
    expect(mail.from?.value).toEqual([{ name: "Sigil", address: "no-reply@localhost" }]);
    const r = await client.signInWithEmailVerification({
      environmentId: tenant.environmentId,
      emailVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken: codeIn(mail.text ?? "") },
    });
    expect(r.user.newUser).toBe(true);
  });

  it("writes each SMS as a .json file under <dataDir>/sms-outbox", async () => {
    const tenant = await dev.bootstrap({ ownerEmail: `codes-dev-${randomUUID()}@example.com` });
    const res = await call(dev.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/providers`, { token: tenant.token, body: { provider: "sms" } });
    expect(res.status).toBeLessThan(300);
    const client = new SDKApi(new Configuration({ basePath: `${dev.baseUrl}/api/v0` }));
    const req = { phoneCountryCode: "44", phoneNumber: "7911123456", isoCountryCode: "GB" };
    const created = await client.createSmsVerification({ environmentId: tenant.environmentId, smsVerificationCreateRequest: req });
    const files = await readdir(path.join(dataDir, "sms-outbox"));
    expect(files).toHaveLength(1);
    const sms = JSON.parse(await readFile(path.join(dataDir, "sms-outbox", files[0]!), "utf8"));
    expect(sms.to).toBe("+447911123456");
    const r = await client.signInWithSmsVerification({
      environmentId: tenant.environmentId,
      smsVerificationVerifyRequest: { verificationUUID: created.verificationUUID, verificationToken: codeIn(sms.body) },
    });
    expect(r.user.newUser).toBe(true);
  });
});

describe("logs", () => {
  it("the dev mailbox and outbox log the file they wrote, never the message's text", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sigil-logs-"));
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    try {
      await createMailer({ smtpUrl: undefined, mailFrom: "Sigil <no-reply@localhost>" }, dir, log).send({ to: "a@example.com", subject: "Your sign-in code", text: "code 483920" });
      await createSmsSender(undefined, dir, log).send({ accountSid: "AC1", authToken: "secret-token", from: "+15005550006" }, { to: "+14155550123", body: "483920 is your code" });
      expect(lines).toHaveLength(2);
      const [mailLine, smsLine] = lines.map((l) => JSON.parse(l));
      expect(mailLine.file).toMatch(/mailbox\/.+\.eml$/);
      expect(smsLine.file).toMatch(/sms-outbox\/.+\.json$/);
      expect(lines.join("\n")).not.toMatch(/483920|secret-token/);
      // The outbox file holds what the gateway would receive, never the auth token.
      expect(await readFile(smsLine.file, "utf8")).not.toContain("secret-token");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
