import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { AuditLogService } from "../../src/gen/sigil/audit/v0/audit_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
let exportId: string;
let memberExportId: string;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `audit-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `audit-other-${randomUUID()}@example.com` });
  // Changes made through the API: two exports (environment token, then member token) in the sandbox.
  const a = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/exports`, { token: t.token, body: { format: "csv", model: "users" } });
  expect(a.status, a.text).toBe(201);
  exportId = a.body.id;
  const b = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/exports`, {
    token: t.memberToken,
    body: { format: "json", model: "users" },
  });
  expect(b.status, b.text).toBe(201);
  memberExportId = b.body.id;
  // Rows at known instants, to check ordering and paging: one in the live environment, one at the
  // organization level (no environment), and one of the other tenant.
  const row = (org: string, env: string | null, action: string, resourceId: string, at: string) =>
    app.db.none(
      `INSERT INTO audit_log (id, organization_id, environment_id, action, resource_type, resource_id, changes, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)`,
      [org, env, action, action.split(".")[0], resourceId, { after: { note: action } }, at],
    );
  await row(t.organizationId, t.liveEnvironmentId, "webhook.created", "w-live", "2020-01-01T00:00:00Z");
  await row(t.organizationId, null, "project.updated", t.projectId, "2020-01-02T00:00:00Z");
  await row(other.organizationId, other.environmentId, "webhook.created", "w-other", "2020-01-03T00:00:00Z");
});
afterAll(() => app?.stop());

const envLogs = (query = "", token = t.token, env = t.environmentId) => call(app.baseUrl, "GET", `/environments/${env}/auditLogs${query}`, { token });
const orgLogs = (query = "", token = t.token, org = t.organizationId) => call(app.baseUrl, "GET", `/organizations/${org}/auditLogs${query}`, { token });

describe("GET /environments/{environmentId}/auditLogs", () => {
  it("lists the environment's changes newest first, with actor, changes and request id", async () => {
    const res = await envLogs();
    expect(res.status, res.text).toBe(200);
    const expected = await app.db.any(`SELECT id FROM audit_log WHERE environment_id = $1 ORDER BY created_at DESC, id DESC`, [t.environmentId]);
    expect(res.body.count).toBe(expected.length);
    expect(res.body.auditLogs.map((l: any) => l.id)).toEqual(expected.map((r) => r.id));
    const [byMember, byToken] = res.body.auditLogs.filter((l: any) => l.resourceType === "export");
    expect(byToken).toMatchObject({
      action: "export.created",
      resourceType: "export",
      resourceId: exportId,
      actor: { tokenId: t.tokenId, memberId: t.memberId },
      changes: { after: { id: exportId, format: "csv", model: "users", status: "pending" } },
      environmentId: t.environmentId,
      organizationId: t.organizationId,
    });
    expect(byToken.requestId).toMatch(/.{8,}/);
    expect(Date.parse(byToken.createdAt)).toBeGreaterThan(Date.parse("2024-01-01"));
    expect(byMember).toMatchObject({ resourceId: memberExportId, actor: { memberId: t.memberId, accountId: t.accountId } });
    // Nothing of the live environment, the organization level or the other tenant.
    expect(res.body.auditLogs.map((l: any) => l.resourceId)).not.toContain("w-live");
    expect(res.body.auditLogs.map((l: any) => l.resourceId)).not.toContain("w-other");
  });

  it("filters by resource type and id, and pages with the total count", async () => {
    const byId = await envLogs(`?resourceType=export&resourceId=${exportId}`);
    expect(byId.body.count).toBe(1);
    expect(byId.body.auditLogs[0].resourceId).toBe(exportId);
    const byType = await envLogs(`?resourceType=export`);
    expect(byType.body.count).toBe(2);
    expect(byType.body.auditLogs.map((l: any) => l.resourceId)).toEqual([memberExportId, exportId]);
    const page = await envLogs(`?resourceType=export&limit=1&offset=1`);
    expect(page.body).toMatchObject({ count: 2 });
    expect(page.body.auditLogs.map((l: any) => l.resourceId)).toEqual([exportId]);
    expect((await envLogs(`?resourceType=nothing`)).body).toEqual({ auditLogs: [], count: 0 });
  });

  it("reads the live environment with the member token", async () => {
    const res = await envLogs("", t.memberToken, t.liveEnvironmentId);
    expect(res.status).toBe(200);
    expect(res.body.auditLogs.map((l: any) => l.resourceId)).toEqual(["w-live"]);
    expect(res.body.auditLogs[0].changes).toEqual({ after: { note: "webhook.created" } });
  });

  it("rejects bad paging and filters with 400", async () => {
    for (const q of ["?limit=5000", "?offset=-1", `?resourceType=${"x".repeat(65)}`, `?resourceId=${"x".repeat(256)}`]) {
      const res = await envLogs(q);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });
});

describe("GET /organizations/{organizationId}/auditLogs", () => {
  it("lists every change of the organization, newest first", async () => {
    const res = await orgLogs();
    expect(res.status).toBe(200);
    const expected = await app.db.any(`SELECT id FROM audit_log WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`, [t.organizationId]);
    expect(res.body.count).toBe(expected.length);
    expect(res.body.auditLogs.map((l: any) => l.id)).toEqual(expected.map((r) => r.id));
    const ids = res.body.auditLogs.map((l: any) => l.resourceId);
    expect(ids).toEqual(expect.arrayContaining([exportId, memberExportId, "w-live", t.projectId]));
    expect(ids).not.toContain("w-other");
    const last = res.body.auditLogs.at(-1);
    // The organization-level row has no environment: the field is absent, not "".
    expect(res.body.auditLogs.find((l: any) => l.resourceId === t.projectId).environmentId).toBeUndefined();
    expect(Date.parse(last.createdAt)).toBeLessThanOrEqual(Date.parse(res.body.auditLogs[0].createdAt));
    const filtered = await orgLogs(`?resourceType=webhook`, t.memberToken);
    expect(filtered.body.auditLogs.map((l: any) => l.resourceId)).toEqual(["w-live"]);
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's tokens on both paths", async () => {
    for (const token of [other.token, other.memberToken]) {
      for (const res of [await envLogs("", token), await orgLogs("", token)]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    expect((await envLogs("")).status).toBe(200);
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/auditLogs`)).status).toBe(401);
  });
});

describe("over Connect and gRPC", () => {
  it("lists both scopes", async () => {
    const headers = { authorization: `Bearer ${t.token}` };
    const grpc = createClient(AuditLogService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const env = await grpc.listEnvironmentAuditLogs({ environmentId: t.environmentId, resourceType: "export" }, { headers });
    expect(env.count).toBe(2);
    expect(env.auditLogs[1]?.resourceId).toBe(exportId);
    expect(env.auditLogs[1]?.changes).toMatchObject({ after: { format: "csv" } });
    const connect = createClient(AuditLogService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const org = await connect.listOrganizationAuditLogs({ organizationId: t.organizationId, limit: 1 }, { headers });
    expect(org.auditLogs).toHaveLength(1);
    expect(org.count).toBeGreaterThanOrEqual(4);
    await expect(
      grpc.listOrganizationAuditLogs({ organizationId: other.organizationId }, { headers }),
    ).rejects.toMatchObject({ code: 5 });
  });
});
