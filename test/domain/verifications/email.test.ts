import { describe, expect, it } from "vitest";
import { canonicalEmail, emailProblem, normaliseEmail } from "../../../src/domain/verifications/email.js";

describe("normaliseEmail: one identifier per mailbox", () => {
  it("lower-cases, trims and writes the domain in ASCII", () => {
    expect(normaliseEmail("  Ada.Lovelace+Tag@Example.COM ")).toBe("ada.lovelace+tag@example.com");
    expect(normaliseEmail("user@Bücher.example")).toBe("user@xn--bcher-kva.example");
    expect(normaliseEmail("user@xn--bcher-kva.example")).toBe("user@xn--bcher-kva.example");
    expect(normaliseEmail("o'brien@example.com")).toBe("o'brien@example.com");
    expect(normaliseEmail("jörg@example.com")).toBe("jörg@example.com");
  });

  it("refuses what mail systems read as another spelling of a plain address: 400 validation_error naming the field", () => {
    for (const bad of [
      '"banned"@example.com',
      '"ban ned"@example.com',
      "banned(comment)@example.com",
      "ban\\ned@example.com",
      "banned@[127.0.0.1]",
      "banned@example.com.",
      ".banned@example.com",
      "ban..ned@example.com",
      "banned@localhost",
      "banned@exa mple.com",
      "a@b@example.com",
      `${"x".repeat(65)}@example.com`,
      "not-an-address",
    ]) {
      expect(emailProblem(bad), bad).not.toBeNull();
      expect(canonicalEmail(bad), bad).toBeNull();
      expect(() => normaliseEmail(bad, "userFields.email"), bad).toThrow(
        expect.objectContaining({ kind: "bad_request", code: "validation_error", payload: { errors: [expect.objectContaining({ field: "userFields.email" })] } }),
      );
    }
  });
});
