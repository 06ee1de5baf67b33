import { afterAll, beforeAll, expect, it } from "vitest";
import { ACTOR_OPERATIONS, OPERATIONS, REQUEST_PATH_OPERATIONS, startRig, trialTable, type Rig } from "../../bench/support/waas-durability.js";
import { testEnv } from "../setup/env.js";

/**
 * The WaaS durability harness (bench/support/waas-durability.ts; `npm run bench:waas-durability` runs 20
 * trials each) with one trial per operation: refresh, reshare, export and backup start through the published
 * client on fresh wallets, a real worker process is killed with SIGKILL at a random moment of each, a new one
 * starts, and every invariant holds: one current share set, none pending, the device's shares sign for the
 * wallet's address and the old ones no longer do, one export and one backup per id / epoch. Then a signature
 * and a new wallet (made in the api's requests) with the api process killed so: no room left half-done, a
 * signature answered has its one audit row and event, a retried createWaasAccount makes one whole wallet.
 */

let rig: Rig;

beforeAll(async () => {
  const { databaseUrl, redisUrl, temporalAddress } = testEnv();
  // The run's servers (the global setup's), never the developer's environment: `npm test` needs none exported.
  rig = await startRig({ port: 20_000 + Math.floor(Math.random() * 20_000), servers: { databaseUrl, redisUrl, temporalAddress } });
}, 90_000);
afterAll(async () => {
  await rig?.stop();
}, 30_000);

it("keeps every wallet whole when the worker is killed (kill -9) during refresh, reshare, export and backup, and the api during signing and key generation", async () => {
  const normal = await rig.calibrate();
  // A window of 0.8 × the normal duration: the one kill lands while every operation is still running.
  const results = [
    ...(await rig.batch(ACTOR_OPERATIONS.map((operation) => ({ operation, trial: 1 })), normal, 0.8)),
    ...(await rig.batch(REQUEST_PATH_OPERATIONS.map((operation) => ({ operation, trial: 1 })), normal, 0.8)),
  ];
  const table = trialTable(results, normal);
  expect(results.flatMap((r) => r.violations.map((v) => `${r.operation}: ${v}`)), table).toEqual([]);
  // A kill delays an operation; it never loses or refuses one.
  expect(results.map((r) => r.outcome), table).toEqual(OPERATIONS.map(() => "done"));
  expect(results.filter((r) => r.killAtMs < r.completionMs).length, table).toBeGreaterThan(0);
}, 360_000);
