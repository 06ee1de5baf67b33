import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { normalisePhone } from "../../../src/domain/verifications/phone.js";

describe("normalisePhone", () => {
  it("makes E.164 the identity and keeps the parts the client shows", () => {
    expect(normalisePhone({ phoneCountryCode: "+1", phoneNumber: "(415) 555-0123", isoCountryCode: "us" })).toEqual({
      e164: "+14155550123",
      phoneNumber: "4155550123",
      phoneCountryCode: "1",
      isoCountryCode: "US",
    });
    // Countries sharing a calling code: a Guernsey mobile under GB is still the same +44 number.
    expect(normalisePhone({ phoneCountryCode: "44", phoneNumber: "07911 123456", isoCountryCode: "GB" }).e164).toBe("+447911123456");
  });

  it("rejects parts that do not make one valid number", () => {
    for (const bad of [
      { phoneCountryCode: "1", phoneNumber: "555", isoCountryCode: "US" },
      { phoneCountryCode: "44", phoneNumber: "4155550123", isoCountryCode: "US" },
      { phoneCountryCode: "1", phoneNumber: "4155550123", isoCountryCode: "ZZ" },
      { phoneCountryCode: "1", phoneNumber: "not a number", isoCountryCode: "US" },
      { phoneCountryCode: "1", phoneNumber: "+447911123456", isoCountryCode: "US" },
    ])
      expect(() => normalisePhone(bad)).toThrow(expect.objectContaining({ kind: "bad_request", code: "invalid_phone_number" }));
  });
});

describe("verification settings", () => {
  const base = { SIGIL_DATA_DIR: "/tmp/sigil-config-test", SIGIL_SEALING_KEYS: `k:${Buffer.alloc(32).toString("base64")}` };

  const budgets = { failuresPerIdentifierPerDay: 20, smsPerEnvironmentPerHour: 100, smsPerEnvironmentPerDay: 1000 };

  it("defaults to the dev mailbox and outbox, 3 codes per minute, 20 wrong codes a day, 100 SMS an hour and 1000 a day", () => {
    expect(loadConfig(base).verifications).toEqual({ smtpUrl: undefined, mailFrom: "Sigil <no-reply@localhost>", smsApiUrl: undefined, sendsPerIdentifierPerMinute: 3, ...budgets });
  });

  it("reads the code budgets: SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY, SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR / _PER_DAY (0 = unbounded)", () => {
    const v = loadConfig({ ...base, SIGIL_CODE_FAILURES_PER_IDENTIFIER_PER_DAY: "0", SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR: "7", SIGIL_SMS_PER_ENVIRONMENT_PER_DAY: "70" }).verifications;
    expect(v).toMatchObject({ failuresPerIdentifierPerDay: 0, smsPerEnvironmentPerHour: 7, smsPerEnvironmentPerDay: 70 });
    expect(() => loadConfig({ ...base, SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR: "lots" })).toThrow(/SIGIL_SMS_PER_ENVIRONMENT_PER_HOUR/);
  });

  it("reads SIGIL_SMTP_URL, SIGIL_MAIL_FROM, SIGIL_SMS_API_URL and SIGIL_CODE_SENDS_PER_MINUTE", () => {
    const v = loadConfig({
      ...base,
      SIGIL_SMTP_URL: "smtp://user:pass@mail.example:587",
      SIGIL_MAIL_FROM: "Acme <no-reply@acme.example>",
      SIGIL_SMS_API_URL: "https://sms.example/2010-04-01/",
      SIGIL_CODE_SENDS_PER_MINUTE: "5",
    }).verifications;
    expect(v).toEqual({ smtpUrl: "smtp://user:pass@mail.example:587", mailFrom: "Acme <no-reply@acme.example>", smsApiUrl: "https://sms.example/2010-04-01", sendsPerIdentifierPerMinute: 5, ...budgets });
  });

  it("refuses URLs of the wrong kind", () => {
    expect(() => loadConfig({ ...base, SIGIL_SMTP_URL: "http://mail.example" })).toThrow(/SIGIL_SMTP_URL/);
    expect(() => loadConfig({ ...base, SIGIL_SMS_API_URL: "not a url" })).toThrow(/SIGIL_SMS_API_URL/);
  });
});
