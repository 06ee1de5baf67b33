import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { databaseCheck } from "../../src/runtime.js";
import { startTestApp, type TestApp } from "../support/app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe("readiness", () => {
  it("the test app's /healthz asks the database, as the process does", async () => {
    const res = await fetch(`${app.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", checks: { database: true, worker: true } });
  });

  it("the database check fails when the database does not answer", async () => {
    // Nothing listens on port 1: the same check over a pool that cannot connect.
    const unreachable = connectDatabase("postgres://postgres@127.0.0.1:1/postgres", { max: 1 });
    try {
      await expect(databaseCheck(unreachable).check()).rejects.toThrow();
      expect(await databaseCheck(app.db).check()).toBe(true);
    } finally {
      await closeDatabase(unreachable);
    }
  });
});
