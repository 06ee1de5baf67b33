import { Connection } from "@temporalio/client";
import pgPromise from "pg-promise";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { listMigrations } from "../../src/db/migrate.js";
import { testEnv } from "./env.js";
import { cloneTemplateDatabase } from "./test-database.js";

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

  it("provides a migrated template that a test app's own database is cloned from, and dropped again", async () => {
    const clone = await cloneTemplateDatabase(env.databaseUrl, env.templateDatabase);
    const db = connectDatabase(clone.url, { max: 1 });
    try {
      const row = await db.one<{ name: string; migrations: number }>(
        "SELECT current_database() AS name, (SELECT count(*)::int FROM schema_migrations) AS migrations",
      );
      expect(row.name.startsWith(`${new URL(env.databaseUrl).pathname.slice(1)}_`)).toBe(true);
      expect(row.migrations).toBe(listMigrations().length);
    } finally {
      await closeDatabase(db);
      await clone.drop();
    }
    const admin = connectDatabase(env.databaseUrl, { max: 1 });
    try {
      expect(await admin.oneOrNone("SELECT 1 FROM pg_database WHERE datname = $1", [new URL(clone.url).pathname.slice(1)])).toBeNull();
      // Nobody may connect to the template: CREATE DATABASE ... TEMPLATE refuses a source with sessions.
      expect((await admin.one("SELECT datallowconn FROM pg_database WHERE datname = $1", [env.templateDatabase])).datallowconn).toBe(false);
    } finally {
      await closeDatabase(admin);
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
