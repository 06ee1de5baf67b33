import { describe, expect, it } from "vitest";
import { enrolmentWhilePending, secondFactorDue, usableFactors, type UserFactors } from "../../../src/domain/mfa/factors.js";
import { mfaPolicyOf } from "../../../src/domain/mfa/policy.js";

const policy = (mfa: Record<string, unknown>) => mfaPolicyOf({ security: { mfa } });
const TOTP_EMAIL = policy({ enabled: true, required: true, methods: [{ type: "totp", enabled: true }, { type: "email", enabled: true }] });
const TOTP_ONLY = policy({ enabled: true, required: true, methods: [{ type: "totp", enabled: true }] });
const OPTIONAL = policy({ enabled: true, required: false, methods: [{ type: "totp", enabled: true }, { type: "email", enabled: true }] });

const user = (u: Partial<UserFactors>): UserFactors => ({ deviceTypes: [], emails: [], otherSignInWays: 0, ...u });
const byWallet = { kind: "wallet", email: null };
const byEmail = (email: string) => ({ kind: "email", email });

describe("usable second factors", () => {
  it("a verified address is a factor where e-mail is offered, never for the sign-in it made (any case)", () => {
    const u = user({ emails: ["Me@Example.com", "other@example.com"] });
    expect(usableFactors(TOTP_EMAIL, u, byWallet).emails).toEqual(["Me@Example.com", "other@example.com"]);
    expect(usableFactors(TOTP_EMAIL, u, byEmail("me@example.com")).emails).toEqual(["other@example.com"]);
    expect(usableFactors(TOTP_ONLY, u, byWallet).emails).toEqual([]);
    // A session whose first factor is unknown cannot use any address.
    expect(usableFactors(TOTP_EMAIL, u, null).emails).toEqual([]);
  });

  it("devices count only of the kinds the environment offers", () => {
    expect(usableFactors(TOTP_ONLY, user({ deviceTypes: ["passkey"] }), byWallet).devices).toBe(false);
    expect(usableFactors(TOTP_ONLY, user({ deviceTypes: ["totp"] }), byWallet).devices).toBe(true);
  });
});

describe("secondFactorDue", () => {
  it("required: always; optional: when the sign-in has a factor it can pass; off: never", () => {
    const u = user({ emails: ["me@example.com"], otherSignInWays: 1 });
    expect(secondFactorDue(TOTP_EMAIL, user({}), byWallet)).toBe(true);
    expect(secondFactorDue(OPTIONAL, u, byWallet)).toBe(true);
    expect(secondFactorDue(OPTIONAL, u, byEmail("me@example.com"))).toBe(false);
    expect(secondFactorDue(policy({ enabled: false, required: true }), u, byWallet)).toBe(false);
  });
});

describe("enrolment by a session still owing its factor", () => {
  it("passes the factor it has first; mints none from the address that is the factor of the user's other sign-ins; else enrols the first device", () => {
    const walletAndMail = user({ emails: ["me@example.com"], otherSignInWays: 1 });
    expect(enrolmentWhilePending(TOTP_EMAIL, walletAndMail, byWallet)).toBe("pass_existing");
    expect(enrolmentWhilePending(TOTP_EMAIL, walletAndMail, byEmail("me@example.com"))).toBe("no_usable_factor");
    expect(enrolmentWhilePending(TOTP_EMAIL, user({ emails: ["me@example.com"] }), byEmail("me@example.com"))).toBe("first_device");
    expect(enrolmentWhilePending(TOTP_ONLY, walletAndMail, byEmail("me@example.com"))).toBe("first_device");
    expect(enrolmentWhilePending(TOTP_ONLY, user({ deviceTypes: ["totp"] }), byWallet)).toBe("pass_existing");
    expect(enrolmentWhilePending(TOTP_EMAIL, walletAndMail, null)).toBe("no_usable_factor");
    expect(enrolmentWhilePending(TOTP_EMAIL, user({ otherSignInWays: 1 }), null)).toBe("first_device");
  });
});
