/**
 * What test/setup/global-setup.ts hands to every test file, typed for `project.provide` there and
 * `inject` in test/setup/env.ts. Values must be serialisable: they cross into the forked workers.
 */
declare module "vitest" {
  export interface ProvidedContext {
    /** A database created for this test run only (dropped at teardown). */
    TEST_DATABASE_URL: string;
    /** The migrated template database on the same server, cloned into each test app's own database. */
    TEST_TEMPLATE_DATABASE: string;
    REDIS_URL: string;
    /** host:port of a Temporal frontend serving the "default" namespace. */
    TEMPORAL_ADDRESS: string;
    /** The vitest project (test/setup/lanes.ts) a file runs in: "unit" files get none of the values above. */
    TEST_LANE: "unit" | "integration";
  }
}

export {};
