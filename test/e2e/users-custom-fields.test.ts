import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { CustomFieldsService } from "../../src/gen/sigil/custom_fields/v0/custom_fields_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  other = await app.bootstrap({ ownerEmail: `cf-other-${randomUUID()}@example.com` });
}, 60_000);
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `cf-${randomUUID()}@example.com` });
const fieldsPath = (t: BootstrapResult) => `/environments/${t.environmentId}/custom/fields`;

async function createField(t: BootstrapResult, body: Record<string, unknown>) {
  const res = await call(app.baseUrl, "POST", fieldsPath(t), { token: t.token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const createUser = (t: BootstrapResult, body: Record<string, unknown>) =>
  call(app.baseUrl, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body });

const countUsers = async (t: BootstrapResult) =>
  (await app.db.one("SELECT count(*)::int AS n FROM users WHERE environment_id = $1", [t.environmentId])).n as number;
const countFields = async (t: BootstrapResult) =>
  (await app.db.one("SELECT count(*)::int AS n FROM custom_fields WHERE environment_id = $1", [t.environmentId])).n as number;

describe("custom field operations", () => {
  it("creates, lists, reads, updates and deletes a field, with audit rows", async () => {
    const t = await tenant();
    const f = await createField(t, {
      name: "favoriteColor",
      label: "Favorite color",
      validationType: "select",
      validationRules: { validOptions: [{ label: "red" }, { label: "blue" }] },
      position: 2,
    });
    expect(f).toMatchObject({
      name: "favoriteColor",
      label: "Favorite color",
      type: "custom",
      validationType: "select",
      enabled: true,
      required: false,
      unique: false,
      position: 2,
      validationRules: { unique: false, validOptions: [{ label: "red" }, { label: "blue" }] },
    });
    await createField(t, { name: "nickname", position: 1 });
    const list = await call(app.baseUrl, "GET", fieldsPath(t), { token: t.token });
    expect(list.status).toBe(200);
    // The REST list is the bare array the published client reads.
    expect(list.body.map((x: any) => x.name)).toEqual(["nickname", "favoriteColor"]);
    const page = await call(app.baseUrl, "GET", `${fieldsPath(t)}?limit=1&offset=1`, { token: t.token });
    expect(page.body.map((x: any) => x.name)).toEqual(["favoriteColor"]);
    const read = await call(app.baseUrl, "GET", `/custom/fields/${f.id}`, { token: t.memberToken });
    expect(read.body.id).toBe(f.id);
    const upd = await call(app.baseUrl, "PUT", `/custom/fields/${f.id}`, { token: t.token, body: { required: true, label: "Colour" } });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body).toMatchObject({ required: true, label: "Colour", validationType: "select", position: 2 });
    const audit = await app.db.any("SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY created_at", [f.id]);
    expect(audit.map((r) => r.action)).toEqual(["custom_field.created", "custom_field.updated"]);
    const del = await call(app.baseUrl, "DELETE", `/custom/fields/${f.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await call(app.baseUrl, "GET", `/custom/fields/${f.id}`, { token: t.token })).status).toBe(404);
    expect(await app.db.any("SELECT 1 FROM audit_log WHERE resource_id = $1 AND action = 'custom_field.deleted'", [f.id])).toHaveLength(1);
  });

  it("refuses bad definitions with 400/409 and stores nothing", async () => {
    const t = await tenant();
    await createField(t, { name: "code" });
    const before = await countFields(t);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: "x", validationRules: { regex: "([a-z" } }, 400, "invalid_regex"],
      [{ name: "x", validationRules: { regex: "(a+)+$" } }, 400, "invalid_regex"],
      [{ name: "x", validationRules: { regex: "(\\w|\\d)*" } }, 400, "invalid_regex"],
      [{ name: "x", validationRules: { regex: "(a)\\1" } }, 400, "invalid_regex"],
      [{ name: "x", validationRules: { regex: "a".repeat(257) } }, 400, "validation_error"],
      [{ name: "x", type: "standard" }, 400, "invalid_standard_field"],
      [{ name: "x", validationType: "select" }, 400, "valid_options_required"],
      [{ name: "1bad" }, 400, "validation_error"],
      [{ name: "x", type: "weird" }, 400, "validation_error"],
      [{ name: "code" }, 409, "custom_field_already_exists"],
    ];
    for (const [body, status, code] of cases) {
      const res = await call(app.baseUrl, "POST", fieldsPath(t), { token: t.token, body });
      expect([res.status, res.body?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect(await countFields(t)).toBe(before);
    const ok = await createField(t, { name: "zip", validationRules: { regex: "[0-9]{5}(-[0-9]{4})?" } });
    expect(ok.validationRules.regex).toBe("[0-9]{5}(-[0-9]{4})?");
  });

  it("answers 404 to another tenant and changes nothing", async () => {
    const t = await tenant();
    const f = await createField(t, { name: "secretish" });
    for (const token of [other.token, other.memberToken]) {
      expect((await call(app.baseUrl, "GET", `/custom/fields/${f.id}`, { token })).status).toBe(404);
      expect((await call(app.baseUrl, "PUT", `/custom/fields/${f.id}`, { token, body: { required: true } })).status).toBe(404);
      expect((await call(app.baseUrl, "DELETE", `/custom/fields/${f.id}`, { token })).status).toBe(404);
      expect((await call(app.baseUrl, "GET", fieldsPath(t), { token })).status).toBe(404);
      expect((await call(app.baseUrl, "POST", fieldsPath(t), { token, body: { name: "intruder" } })).status).toBe(404);
    }
    const read = await call(app.baseUrl, "GET", `/custom/fields/${f.id}`, { token: t.token });
    expect(read.body.required).toBe(false);
    expect(await countFields(t)).toBe(1);
  });

  it("is reachable over Connect", async () => {
    const t = await tenant();
    const client = createClient(CustomFieldsService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const headers = { authorization: `Bearer ${t.token}` };
    const created = await client.createCustomField({ environmentId: t.environmentId, name: "viaRpc", required: true }, { headers });
    const list = await client.listCustomFields({ environmentId: t.environmentId }, { headers });
    expect(list.customFields.map((f) => f.id)).toEqual([created.customField!.id]);
  });
});

describe("custom fields on users", () => {
  it("requires required fields on create and lists them as missingFields for existing users", async () => {
    const t = await tenant();
    const early = await createUser(t, { firstName: "Early" });
    expect(early.body.user.missingFields).toEqual([]);
    await createField(t, { name: "company", label: "Company", required: true });
    const before = await countUsers(t);
    const res = await createUser(t, { firstName: "NoCompany" });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "custom_field_required", error: "Company is required" });
    const blank = await createUser(t, { metadata: { company: "  " } });
    expect(blank.body.code).toBe("custom_field_required");
    expect(await countUsers(t)).toBe(before);
    const ok = await createUser(t, { metadata: { company: "Acme" } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.user.missingFields).toEqual([]);
    const read = await call(app.baseUrl, "GET", `/users/${early.body.user.id}`, { token: t.token });
    expect(read.body.user.missingFields.map((f: any) => f.name)).toEqual(["company"]);
    // An existing user lacking the field can still be updated otherwise, but a stored value cannot be removed.
    const upd = await call(app.baseUrl, "PUT", `/users/${early.body.user.id}`, { token: t.token, body: { lastName: "Bird" } });
    expect(upd.status, upd.text).toBe(200);
    const strip = await call(app.baseUrl, "PUT", `/users/${ok.body.user.id}`, { token: t.token, body: { metadata: {} } });
    expect(strip.status).toBe(422);
    expect(strip.body.code).toBe("custom_field_required");
    // A disabled field is not enforced.
    const f = (await call(app.baseUrl, "GET", `/environments/${t.environmentId}/custom/fields`, { token: t.token })).body[0];
    await call(app.baseUrl, "PUT", `/custom/fields/${f.id}`, { token: t.token, body: { enabled: false } });
    expect((await createUser(t, { firstName: "Later" })).status).toBe(201);
  });

  it("checks regex and valid options on create and update", async () => {
    const t = await tenant();
    await createField(t, { name: "zip", validationRules: { regex: "[0-9]{5}" } });
    await createField(t, { name: "size", validationType: "select", validationRules: { validOptions: [{ label: "S" }, { label: "M" }] } });
    await createField(t, { name: "username", type: "standard", validationRules: { regex: "[a-z]+" } });
    const bad = await createUser(t, { metadata: { zip: "1234x" } });
    expect([bad.status, bad.body.code]).toEqual([422, "custom_field_invalid_format"]);
    const partial = await createUser(t, { metadata: { zip: "123456" } });
    expect(partial.body.code).toBe("custom_field_invalid_format"); // the whole value must match
    const option = await createUser(t, { metadata: { size: "XL" } });
    expect([option.status, option.body.code]).toEqual([422, "custom_field_invalid_option"]);
    const std = await createUser(t, { username: "Has Spaces" });
    expect(std.body.code).toBe("custom_field_invalid_format");
    const ok = await createUser(t, { username: "lower", metadata: { zip: "12345", size: "M" } });
    expect(ok.status, ok.text).toBe(201);
    const upd = await call(app.baseUrl, "PUT", `/users/${ok.body.user.id}`, { token: t.token, body: { metadata: { zip: "abcde", size: "M" } } });
    expect(upd.body.code).toBe("custom_field_invalid_format");
    expect((await call(app.baseUrl, "GET", `/users/${ok.body.user.id}`, { token: t.token })).body.user.metadata).toEqual({ zip: "12345", size: "M" });
  });

  it("enforces unique fields across users, also when made unique later, and frees values of deleted users", async () => {
    const t = await tenant();
    const f = await createField(t, { name: "employeeId", validationRules: { unique: true } });
    expect(f.unique).toBe(true);
    const a = await createUser(t, { metadata: { employeeId: "E-1" } });
    expect(a.status).toBe(201);
    const dup = await createUser(t, { metadata: { employeeId: " e-1 " } });
    expect([dup.status, dup.body.code]).toEqual([422, "custom_field_not_unique"]);
    const b = await createUser(t, { metadata: { employeeId: "E-2" } });
    const upd = await call(app.baseUrl, "PUT", `/users/${b.body.user.id}`, { token: t.token, body: { metadata: { employeeId: "E-1" } } });
    expect(upd.body.code).toBe("custom_field_not_unique");
    // Concurrent creates with the same value: exactly one wins.
    const racers = await Promise.all([0, 1, 2, 3].map(() => createUser(t, { metadata: { employeeId: "E-race" } })));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    // Bulk rows repeating a unique value of an earlier row fail.
    const bulk = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/users/bulk`, {
      token: t.token,
      body: [{ metadata: { employeeId: "E-9" } }, { metadata: { employeeId: "e-9" } }, { metadata: {} }],
    });
    expect(bulk.body.results.map((r: any) => r.error?.code ?? "ok")).toEqual(["ok", "custom_field_not_unique", "ok"]);
    // Deleting the holder frees the value.
    expect((await call(app.baseUrl, "DELETE", `/users/${a.body.user.id}`, { token: t.token })).status).toBe(204);
    expect((await createUser(t, { metadata: { employeeId: "E-1" } })).status).toBe(201);
    // A field that existing users share cannot become unique.
    const team = await createField(t, { name: "team", type: "standard" });
    await createUser(t, { team: "Blue" });
    await createUser(t, { team: "blue" });
    const make = await call(app.baseUrl, "PUT", `/custom/fields/${team.id}`, { token: t.token, body: { unique: true } });
    expect([make.status, make.body.code]).toEqual([422, "custom_field_not_unique"]);
    expect((await call(app.baseUrl, "GET", `/custom/fields/${team.id}`, { token: t.token })).body.unique).toBe(false);
  });
});
