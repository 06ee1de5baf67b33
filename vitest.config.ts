import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starts (or attaches to) Postgres, Redis and Temporal once per run; files read them with testEnv().
    globalSetup: ["test/setup/global-setup.ts"],
    // Real servers, not mocks: a Temporal workflow or a migration can take seconds on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Stopping the servers started by the global setup (Temporal, Postgres) takes a few seconds.
    teardownTimeout: 60_000,
    // Forks rather than threads: native addons (Temporal's core bridge) and process-wide state (pg pools,
    // process.on handlers) are isolated per file, and a crash takes down one worker only.
    pool: "forks",
    // Two cores: more workers than that only adds contention with the servers under test.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
