import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertExport, findExport } from "../../src/db/repositories/exports.js";
import { reconcileOnce } from "../../src/domain/reconciler.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { waitFor } from "../support/poll.js";

/**
 * The same fault as a WaaS room left hanging, for users exports: the export is stored (pending) before its
 * workflow is started; a process killed in between left it pending for ever. The worker's reconciler starts
 * the workflow of every export still pending after the stale time (a start of a running one joins it).
 */

let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `exports-never-started-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

it("starts the workflow of an export stored by a process that died before starting it", async () => {
  // What createExport stored before the kill: the row, and no workflow.
  const stored = await insertExport(app.db, t.environmentId, { id: randomUUID(), model: "users", format: "csv", filter: {}, createdByTokenId: null, createdByMemberId: null });
  await app.db.none("UPDATE exports SET created_at = now() - interval '1 minute' WHERE id = $1", [stored.id]);
  // Another tenant's export stays its own: each is started in its own environment.
  const other = await app.bootstrap({ ownerEmail: `exports-never-started-other-${randomUUID()}@example.com` });
  const theirs = await insertExport(app.db, other.environmentId, { id: randomUUID(), model: "users", format: "json", filter: {}, createdByTokenId: null, createdByMemberId: null });
  await app.db.none("UPDATE exports SET created_at = now() - interval '1 minute' WHERE id = $1", [theirs.id]);

  // Both show in the metric an operator alerts on.
  const metric = async () => Number((await (await fetch(`${app.baseUrl}/metrics`)).text()).match(/^sigil_exports_pending_stale (\d+)$/m)?.[1]);
  expect(await metric()).toBeGreaterThanOrEqual(2);

  await reconcileOnce(app.deps, { staleMs: 30_000 });

  for (const [env, id] of [[t.environmentId, stored.id], [other.environmentId, theirs.id]] as const) {
    const done = await waitFor(`export ${id} completed`, async () => (await findExport(app.db, env, id))!, { until: (e) => e.status === "completed" || e.status === "failed", timeoutMs: 30_000 });
    expect(done.status, done.error ?? "").toBe("completed");
  }
  expect(await metric()).toBe(0);
  // A fresh pending export (its request may still be starting it) is left alone.
  const fresh = await insertExport(app.db, t.environmentId, { id: randomUUID(), model: "users", format: "csv", filter: {}, createdByTokenId: null, createdByMemberId: null });
  await reconcileOnce(app.deps, { staleMs: 30_000 });
  expect((await findExport(app.db, t.environmentId, fresh.id))!.status).toBe("pending");
});
