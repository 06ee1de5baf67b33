import { describe, expect, it } from "vitest";
import { conform, type Undeclared } from "./conform.js";
import { readClientModels } from "./models.js";

/** The rule the suite holds every answer to, on answers of the kinds that once passed it wrongly. */
describe("conform: an answer the client can read", () => {
  const models = readClientModels();

  it("refuses an object that carries none of its model's properties, though every one is optional", () => {
    const undeclared: Undeclared[] = [];
    const v = conform(models, { jwtExpirationSeconds: 7200, allowedRedirectUrls: [] }, "ProjectSettingsSecurity", "$", undeclared);
    expect(v.map((x) => x.path)).toEqual(["$"]);
    expect(v[0].problem).toMatch(/carries none of the properties ProjectSettingsSecurity declares/);
    expect(undeclared).toEqual([
      { path: "$.jwtExpirationSeconds", model: "ProjectSettingsSecurity", property: "jwtExpirationSeconds" },
      { path: "$.allowedRedirectUrls", model: "ProjectSettingsSecurity", property: "allowedRedirectUrls" },
    ]);
  });

  it("lets an empty object through: nothing set, nothing hidden", () => {
    expect(conform(models, {}, "ProjectSettingsDesign")).toEqual([]);
  });

  it("holds nested objects to the same rule", () => {
    const v = conform(models, { jwtDuration: { amount: 2, unit: "hours" }, mfa: { on: true } }, "ProjectSettingsSecurity");
    expect(v.map((x) => x.path)).toEqual(["$.mfa"]);
  });

  it("lists properties the model does not declare beside the ones it does", () => {
    const undeclared: Undeclared[] = [];
    expect(conform(models, { jwtDuration: { amount: 2, unit: "hours" }, extra: 1 }, "ProjectSettingsSecurity", "$", undeclared)).toEqual([]);
    expect(undeclared.map((u) => u.path)).toEqual(["$.extra"]);
  });

  it("reads the names the client reads on the wire, not the names it declares", () => {
    const undeclared: Undeclared[] = [];
    expect(conform(models, { id: "x", format: "email", signInEnabled: true, public_identifier: "a@b.c" }, "JwtVerifiedCredential", "$", undeclared)).toEqual([]);
    expect(undeclared).toEqual([]);
    conform(models, { id: "x", format: "email", signInEnabled: true, publicIdentifier: "a@b.c" }, "JwtVerifiedCredential", "$", undeclared);
    expect(undeclared.map((u) => u.property)).toEqual(["publicIdentifier"]);
  });

  it("refuses an object where the client parses a bare array", () => {
    expect(conform(models, { environmentIds: ["a"] }, "Array<string>")[0].problem).toMatch(/expected an array/);
    expect(conform(models, { data: [] }, "Array<object>")[0].problem).toMatch(/expected an array/);
    expect(conform(models, ["a"], "Array<string>")).toEqual([]);
  });
});
