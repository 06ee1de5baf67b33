import { Connection } from "@temporalio/client";
import pgPromise from "pg-promise";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { testEnv } from "./env.js";

// The global setup's promise to every other test file: three servers that answer.
describe("global test setup", () => {
  const env = testEnv();

  it("provides a fresh database of this run", async () => {
    const pgp = pgPromise();
    const db = pgp(env.databaseUrl);
    try {
      const row = await db.one<{ name: string; tables: string }>(
        "SELECT current_database() AS name, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public') AS tables",
      );
      expect(row.name).toMatch(/^sigil_test_[0-9a-f]{12}$/);
      await db.none("CREATE TABLE IF NOT EXISTS setup_probe (id int)");
    } finally {
      await db.$pool.end();
    }
  });

  it("provides a Redis that answers", async () => {
    const client = createClient({ url: env.redisUrl });
    await client.connect();
    try {
      expect(await client.ping()).toBe("PONG");
    } finally {
      client.destroy();
    }
  });

  it("provides a Temporal frontend serving the default namespace", async () => {
    const connection = await Connection.connect({ address: env.temporalAddress });
    try {
      const ns = await connection.workflowService.describeNamespace({ namespace: "default" });
      expect(ns.namespaceInfo?.name).toBe("default");
    } finally {
      await connection.close();
    }
  });
});
