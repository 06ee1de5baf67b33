import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

/**
 * Defects Schemathesis found (test/contract/schemathesis.test.ts), each held here by a deterministic test
 * through the REST API, so that the fix does not depend on the fuzzer meeting the same input again.
 */
describe("what the fuzzer found", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  // Found as a 500 on DELETE /projects/{projectId} while another worker deleted its organization: the project's
  // deletion wrote its audit row for an organization gone meanwhile (a foreign key violation), or the two
  // deletions locked the organization and the project in opposite orders (deadlock detected).
  it("deletes an organization and one of its projects at once without a 5xx: one wins, the other finds nothing", async () => {
    const owner = await app.bootstrap({ ownerEmail: "racing-deletions@example.com" });
    const statuses: string[] = [];
    for (let i = 0; i < 12; i++) {
      const doomed = await app.bootstrap({ ownerEmail: "racing-deletions@example.com", organizationName: `Doomed ${i}` });
      const [org, project] = await Promise.all([
        call(app.baseUrl, "DELETE", `/organizations/${doomed.organizationId}`, { token: owner.memberToken }),
        call(app.baseUrl, "DELETE", `/projects/${doomed.projectId}`, { token: owner.memberToken }),
      ]);
      expect(org.status, org.text).toBe(204);
      // Deleted first, or found gone with its organization.
      expect([204, 404], project.text).toContain(project.status);
      statuses.push(`${org.status}/${project.status}`);
    }
    expect(statuses).toHaveLength(12);
  });

  it("answers the second of two deletions of one project 404", async () => {
    const owner = await app.bootstrap({ ownerEmail: "twice-deleted@example.com" });
    const [a, b] = await Promise.all([
      call(app.baseUrl, "DELETE", `/projects/${owner.projectId}`, { token: owner.memberToken }),
      call(app.baseUrl, "DELETE", `/projects/${owner.projectId}`, { token: owner.memberToken }),
    ]);
    expect([a.status, b.status].sort()).toEqual([204, 404]);
    expect([a, b].find((r) => r.status === 404)!.body).toMatchObject({ code: "not_found" });
  });

  // Found as a 500 on POST /environments/{environmentId}/waas/delegatedAccess/revoke with {"walletIds": [""]}:
  // an empty string in a list skipped the list's per-item rules (an empty scalar is "not set", an empty item
  // is a value) and reached Postgres as a uuid ("invalid input syntax for type uuid").
  it("refuses an empty item in a list of UUIDs with 400 validation_error, naming the item", async () => {
    const owner = await app.bootstrap({ ownerEmail: "empty-list-item@example.com" });
    const r = await call(app.baseUrl, "POST", `/environments/${owner.environmentId}/waas/delegatedAccess/revoke`, {
      token: owner.token,
      body: { walletIds: [""] },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: "validation_error", payload: { errors: [{ field: "walletIds[0]" }] } });
  });
});
