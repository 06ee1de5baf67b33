import { configDefaults, defineConfig } from "vitest/config";
import { unitLane } from "./test/setup/lanes.js";

export default defineConfig({
  test: {
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
    // Two lanes (test/setup/lanes.ts): `npm test` runs both in one run, `--project unit` or `--project
    // integration` one of them.
    projects: [
      {
        extends: true,
        // No global setup: these files need no server, so this lane runs in seconds on a bare machine.
        test: { name: "unit", include: unitLane, provide: { TEST_LANE: "unit" } },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...unitLane],
          // Starts (or attaches to) Postgres, Redis and Temporal and builds the workflow bundle, once per
          // run; files read them with testEnv().
          globalSetup: ["test/setup/global-setup.ts"],
          provide: { TEST_LANE: "integration" },
        },
      },
    ],
  },
});
