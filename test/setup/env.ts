import { inject } from "vitest";
import "./provided-context.js";

export interface TestEnv {
  /**
   * A fresh database of this test run, for tests without an app: migrate it yourself; other test files share
   * it. A test app has a database of its own (TestApp.db), cloned from `templateDatabase`.
   */
  databaseUrl: string;
  /** The name of the migrated template database on the same server (no connections allowed: clone it). */
  templateDatabase: string;
  redisUrl: string;
  temporalAddress: string;
}

/**
 * The servers the global setup (test/setup/global-setup.ts) made available. They come through vitest's
 * provide/inject rather than process.env because inject reaches every worker whatever the pool and
 * however workers are reused, and cannot be confused with the developer's own DATABASE_URL.
 */
export function testEnv(): TestEnv {
  const databaseUrl = inject("TEST_DATABASE_URL");
  const redisUrl = inject("REDIS_URL");
  const temporalAddress = inject("TEMPORAL_ADDRESS");
  const templateDatabase = inject("TEST_TEMPLATE_DATABASE");
  if (inject("TEST_LANE") === "unit") {
    // Fails at once rather than waiting on servers that were never started.
    throw new Error(
      "this file is in the unit lane, which starts no servers, yet asks for them (testEnv(), startTestApp(), migratedDatabase()): " +
        "remove it from the unit lane in test/setup/lanes.ts so that it runs in the integration lane",
    );
  }
  if (!databaseUrl || !templateDatabase || !redisUrl || !temporalAddress) {
    throw new Error("test servers were not provided: run tests with `npm test` (vitest.config.ts runs test/setup/global-setup.ts)");
  }
  return { databaseUrl, templateDatabase, redisUrl, temporalAddress };
}
