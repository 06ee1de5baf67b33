import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { NativeConnection, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWaasActivities } from "../../src/activities/waas.js";
import { createWaasBackupActivities } from "../../src/activities/waas-backup.js";
import { createSealer } from "../../src/crypto/seal.js";
import type { Database } from "../../src/db/db.js";
import { closeDatabase } from "../../src/db/db.js";
import { findRoom } from "../../src/db/repositories/waas-rooms.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import type { BackupAuditContext } from "../../src/domain/waas/threshold/backup-steps.js";
import { openRoom } from "../../src/domain/waas/threshold/rooms.js";
import { findTemporalCli } from "../../src/infra/temporal-dev-server.js";
import { connectTemporalClient } from "../../src/temporal/flows.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { runWaasWalletOperation } from "../../src/temporal/waas-wallet.js";
import { backupUpdate, recoverUpdate, runRoomUpdate, type WaasWalletInput } from "../../src/workflows/waas-wallet.js";
import { migratedDatabase } from "../support/app.js";
import { testWorkflowBundle } from "../support/workflow-bundle.js";
import { TestDevice } from "../support/waas-device.js";
import { testEnv } from "../setup/env.js";

// The wallet actor's Updates `backup` and `recover` against the real Temporal dev server and Postgres, on a
// worker of its own: the Update id makes a retried call the same operation, another environment's Update is
// refused before it enters the history, and the committed history of a keygen + backup + recover replays.


let db: Database;
let client: Client;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let environmentId: string;
let audit: BackupAuditContext;
let userId: string;
const taskQueue = `waas-backup-${randomUUID()}`;
const sealer = createSealer([{ id: "test", key: randomBytes(32) }]);
const backupSealer = createSealer([{ id: "backup", key: randomBytes(32) }]);

beforeAll(async () => {
  db = await migratedDatabase();
  const t = await bootstrapTenant(db, { ownerEmail: `waas-backup-${randomUUID()}@example.com` });
  environmentId = t.environmentId;
  userId = randomUUID();
  audit = { userId, organizationId: t.organizationId, projectId: t.projectId, environmentName: "sandbox", requestId: "" };
  await db.none("INSERT INTO users (id, environment_id) VALUES ($1, $2)", [userId, environmentId]);
  client = await connectTemporalClient(testEnv().temporalAddress, "default");
  connection = await NativeConnection.connect({ address: testEnv().temporalAddress });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await testWorkflowBundle(),
    activities: { ...createWaasActivities({ db, sealer }), ...createWaasBackupActivities({ db, sealer, backupSealer }) },
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await client?.connection.close();
  if (db) await closeDatabase(db);
});

/** A TWO_OF_TWO EVM wallet made by the actor's keygen room (the one place that knows how). */
async function newWallet(policy: WaasWalletInput["policy"] = { idleMs: 3_000 }) {
  const walletId = randomUUID();
  const wallet: WaasWalletInput = { environmentId, walletId, userId, policy };
  const device = new TestDevice("1234");
  const request = { chain: "EVM", scheme: "TWO_OF_TWO", clientKeygenIds: device.keygenIds(1), audit };
  const room = await openRoom(db, sealer, { environmentId, userId, walletId, operation: "keygen", request, shareSetId: null });
  await runWaasWalletOperation(client, taskQueue, wallet, runRoomUpdate, { roomId: room.id, operation: "keygen" });
  const done = (await findRoom(db, environmentId, room.id))!;
  expect(done.status).toBe("done");
  return { walletId, wallet };
}

const backupArgs = (credential: string) => ({ credentials: [{ encryptedAccountCredential: credential, passwordEncrypted: true }], toVault: true, location: "dynamic", audit });

describe("the actor's backup and recover Updates", () => {
  it("the same Update id is the same operation: a retried call answers the first result", async () => {
    const { wallet } = await newWallet();
    const id = `backup-${randomUUID()}`;
    const first = await runWaasWalletOperation(client, taskQueue, wallet, backupUpdate, backupArgs("c1"), id);
    const again = await runWaasWalletOperation(client, taskQueue, wallet, backupUpdate, backupArgs("c1"), id);
    expect(again).toEqual(first);
    expect((await db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [wallet.walletId])).n).toBe(2);
  });

  it("an Update of another environment is refused before it runs", async () => {
    const { wallet } = await newWallet();
    const err = await runWaasWalletOperation(client, taskQueue, { ...wallet, environmentId: randomUUID() }, recoverUpdate, { keyShareIds: [], audit }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  });
});

// Replay: the committed history of one actor run (keygen, backup, the server share lost, recover, idle end)
// must replay against today's code. Record it again when the workflow changes on purpose: RECORD_WAAS_HISTORY=1.
describe("replay", () => {
  const file = path.join(import.meta.dirname, "histories", "waas-wallet-backup.json");

  it("records (RECORD_WAAS_HISTORY=1) or replays the committed history", async () => {
    if (process.env.RECORD_WAAS_HISTORY) await record();
    expect(existsSync(file), "waas-wallet-backup.json is committed").toBe(true);
    const workflowBundle = await testWorkflowBundle();
    await Worker.runReplayHistory({ workflowBundle }, JSON.parse(readFileSync(file, "utf8")), "replay-waas-wallet-backup");
  }, 120_000);

  async function record() {
    const { walletId, wallet } = await newWallet({ idleMs: 2_000 });
    const handle = client.workflow.getHandle(workflowIds.waasWallet(walletId));
    const runId = (await handle.describe()).runId;
    await runWaasWalletOperation(client, taskQueue, wallet, backupUpdate, backupArgs("recorded"));
    await db.none("UPDATE waas_share_set_shares SET share_sealed = NULL, destroyed_at = now() WHERE environment_id = $1 AND holder_index = 1 AND share_set_id IN (SELECT id FROM waas_share_sets WHERE wallet_id = $2)", [environmentId, walletId]);
    const r = await runWaasWalletOperation(client, taskQueue, wallet, recoverUpdate, { keyShareIds: [], audit });
    expect(r.serverShareRestored).toBe(true);
    await client.workflow.getHandle(workflowIds.waasWallet(walletId), runId).result();
    const cli = findTemporalCli();
    if (!cli) throw new Error("recording needs the Temporal CLI");
    const json = execFileSync(cli, ["workflow", "show", "-w", workflowIds.waasWallet(walletId), "-r", runId, "-o", "json", "--address", testEnv().temporalAddress], {
      encoding: "utf8",
    });
    writeFileSync(file, json.trim() + "\n");
  }
});
