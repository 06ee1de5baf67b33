/**
 * Records the event history of one real run of each workflow into test/workflows/histories/, for the
 * replay test. Run it when a workflow changes on purpose (with a versioning patch for running flows):
 *   DATABASE_URL=... TEMPORAL_ADDRESS=... npx tsx scripts/record-workflow-history.ts
 */
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { NativeConnection, Worker } from "@temporalio/worker";
import { createActivities } from "../src/activities/index.js";
import { loadConfig } from "../src/config.js";
import { buildDeps } from "../src/deps.js";
import { createStore } from "../src/store/store.js";
import { closeDatabase, connectDatabase } from "../src/db/db.js";
import { migrate } from "../src/db/migrate.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { insertUser } from "../src/db/repositories/users.js";
import { insertWallet, softDeleteWallet } from "../src/db/repositories/wallets.js";
import { connectTemporalClient, createFlows } from "../src/temporal/flows.js";
import { workflowIds } from "../src/temporal/ids.js";
import { workflowsPath } from "../src/temporal/worker.js";
import { findTemporalCli } from "../src/infra/temporal-dev-server.js";
import { walletRecoveryWorkflow } from "../src/workflows/index.js";

const { DATABASE_URL, TEMPORAL_ADDRESS } = process.env;
if (!DATABASE_URL || !TEMPORAL_ADDRESS) throw new Error("set DATABASE_URL and TEMPORAL_ADDRESS");

const db = connectDatabase(DATABASE_URL);
await migrate(db);
const tenant = await bootstrapTenant(db);
const user = await insertUser(db, tenant.environmentId, {});
const wallet = await insertWallet(db, tenant.environmentId, user.id, {
  name: "recorded",
  chain: "EVM",
  address: `0x${randomUUID().replace(/-/g, "").padEnd(40, "0")}`,
  provider: "browserExtension",
});
await softDeleteWallet(db, tenant.environmentId, wallet.id);

const taskQueue = `record-${randomUUID()}`;
const connection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS });
const client = await connectTemporalClient(TEMPORAL_ADDRESS, "default");
const config = loadConfig({ ...process.env, LOG_LEVEL: "warn", SIGIL_SEALING_KEYS: `record:${randomBytes(32).toString("base64")}` });
const store = await createStore(config.redisUrl);
const deps = buildDeps({ config, db, store, flows: createFlows(client, taskQueue) });
const worker = await Worker.create({ connection, taskQueue, workflowsPath, activities: createActivities(deps) });
const workflowId = workflowIds.walletRecovery(tenant.environmentId, user.id);
await worker.runUntil(
  client.workflow.execute(walletRecoveryWorkflow, { taskQueue, workflowId, args: [{ environmentId: tenant.environmentId, userId: user.id }] }),
);
// The CLI writes the standard proto3 JSON history that historyFromJSON reads (the SDK's own
// historyToJSON trips over the duplicate protobufjs copies in node_modules).
const cli = findTemporalCli();
if (!cli) throw new Error("no Temporal CLI found: npm run tools:temporal");
const json = execFileSync(cli, ["workflow", "show", "-w", workflowId, "-o", "json", "--address", TEMPORAL_ADDRESS], { encoding: "utf8" });
const out = path.join(import.meta.dirname, "../test/workflows/histories/wallet-recovery.json");
writeFileSync(out, json.trim() + "\n");
console.log(`wrote ${out}`);
await connection.close();
await client.connection.close();
await store.close();
await closeDatabase(db);
