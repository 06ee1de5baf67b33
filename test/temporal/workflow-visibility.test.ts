import { randomBytes, randomUUID } from "node:crypto";
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from "@temporalio/client";
import { NativeConnection, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWaasActivities } from "../../src/activities/waas.js";
import { createWaasExportActivities } from "../../src/activities/waas-export.js";
import { createSealer } from "../../src/crypto/seal.js";
import { closeDatabase, type Database } from "../../src/db/db.js";
import type { Flows } from "../../src/domain/deps.js";
import { connectTemporalClient, createFlows } from "../../src/temporal/flows.js";
import { taskQueues, workflowIds } from "../../src/temporal/ids.js";
import * as workflows from "../../src/workflows/index.js";
import { SEARCH_ATTRIBUTES } from "../../src/workflows/search-attributes.js";
import { migratedDatabase } from "../support/app.js";
import { waitFor } from "../support/poll.js";
import { testWorkflowBundle } from "../support/workflow-bundle.js";
import { testEnv } from "../setup/env.js";

// An operator filtering the Temporal UI by environment (SigilEnvironmentId) finds every flow of it, each
// with a one-line summary. Walks the workflow index (what the worker runs): every workflow type is started
// here the way production starts it (the real Flows, or the actor that starts it), and described on the real
// Temporal server. The flows the test only needs started run on a queue with no worker, so nothing else
// happens; the export, a child of the wallet actor, needs the actor to run and gets a worker.

let client: Client;
let db: Database;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
const idleQueue = `visibility-idle-${randomUUID()}`;
const actorQueue = `visibility-actor-${randomUUID()}`;
const environmentId = randomUUID();
const userId = randomUUID();
/** Workflows this file started and left running (on the queue with no worker), terminated at the end. */
const started: string[] = [];

beforeAll(async () => {
  client = await connectTemporalClient(testEnv().temporalAddress, "default");
  db = await migratedDatabase();
  connection = await NativeConnection.connect({ address: testEnv().temporalAddress });
  const deps = { db, sealer: createSealer([{ id: "test", key: randomBytes(32) }]) };
  worker = await Worker.create({
    connection,
    taskQueue: actorQueue,
    workflowBundle: await testWorkflowBundle(),
    activities: { ...createWaasActivities(deps), ...createWaasExportActivities(deps) },
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  for (const id of started) await client.workflow.getHandle(id).terminate("test over").catch(() => undefined);
  worker?.shutdown();
  await running;
  await connection?.close();
  await client?.connection.close();
  if (db) await closeDatabase(db);
});

/** The description of a workflow once it exists (starts that wait for a result are not awaited). */
async function described(workflowId: string): Promise<WorkflowExecutionDescription> {
  return waitFor(`${workflowId} to exist`, () => client.workflow.getHandle(workflowId).describe().catch((e) => (e instanceof WorkflowNotFoundError ? undefined : Promise.reject(e))), {
    timeoutMs: 20_000,
    intervalMs: 100,
  });
}

/** Starts a call that waits on a workflow with no worker: it never answers; the workflow is terminated at the end. */
function inBackground(workflowId: string, call: Promise<unknown>): string {
  started.push(workflowId);
  call.catch(() => undefined);
  return workflowId;
}

/** How production starts each workflow type of the index, and the workflow id it gets. */
const startSites: Record<keyof typeof workflows, (flows: { idle: Flows; actor: Flows }) => Promise<string>> = {
  async walletRecoveryWorkflow({ idle }) {
    return inBackground(workflowIds.walletRecovery(environmentId, userId), idle.recoverWallets({ environmentId, userId }));
  },
  async exportUsersWorkflow({ idle }) {
    const exportId = randomUUID();
    await idle.startExport({ environmentId, exportId });
    started.push(workflowIds.export(exportId));
    return workflowIds.export(exportId);
  },
  async webhookDeliveryWorkflow({ idle }) {
    const messageId = randomUUID();
    await idle.startWebhookDelivery({ environmentId, messageId, redelivery: 0 });
    started.push(workflowIds.webhookDelivery(messageId));
    return workflowIds.webhookDelivery(messageId);
  },
  async webhookEndpointWorkflow({ idle }) {
    const webhookId = randomUUID();
    await idle.wakeWebhookEndpoints([{ environmentId, webhookId }]);
    started.push(workflowIds.webhookEndpoint(webhookId));
    return workflowIds.webhookEndpoint(webhookId);
  },
  async waasWalletWorkflow({ idle }) {
    const walletId = randomUUID();
    const call = idle.runWaasRoom({ environmentId, walletId, userId, roomId: randomUUID(), operation: "sign" });
    return inBackground(workflowIds.waasWallet(walletId), call);
  },
  // A child of the wallet's actor: the export of a room that does not exist is started, then refused.
  async walletExportWorkflow({ actor }) {
    const walletId = randomUUID();
    const exportId = randomUUID();
    const refused = actor.runWaasRoom({ environmentId, walletId, userId, roomId: randomUUID(), operation: "export", exportId });
    await expect(refused).rejects.toMatchObject({ code: "not_found" });
    return workflowIds.walletExport(walletId, exportId);
  },
};

describe("every workflow type of the index", () => {
  it("has a start site here", () => {
    expect(Object.keys(startSites).sort()).toEqual(Object.keys(workflows).sort());
  });

  it.each(Object.keys(workflows))("%s carries a summary and the environment's search attribute", async (name) => {
    const flows = { idle: createFlows(client, idleQueue), actor: createFlows(client, actorQueue) };
    const workflowId = await startSites[name as keyof typeof workflows](flows);
    // The attribute of a child set from its own code reaches visibility after its first task.
    const d = await waitFor(
      `${workflowId} to carry ${SEARCH_ATTRIBUTES.environmentId.name}`,
      async () => {
        const x = await described(workflowId);
        return x.typedSearchAttributes.getAll().some((p) => p.key.name === SEARCH_ATTRIBUTES.environmentId.name) ? x : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(d.type).toBe(name);
    const attributes = Object.fromEntries(d.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
    expect(attributes[SEARCH_ATTRIBUTES.environmentId.name]).toBe(environmentId);
    expect(await d.staticSummary()).toBeTruthy();
  });

  it("lets an operator list them all by environment", async () => {
    const query = `${SEARCH_ATTRIBUTES.environmentId.name} = "${environmentId}"`;
    const types = async () => {
      const seen = new Set<string>();
      for await (const w of client.workflow.list({ query })) seen.add(w.type);
      return seen.size === Object.keys(workflows).length ? seen : undefined;
    };
    const seen = await waitFor("visibility to list every workflow type of the environment", types, { timeoutMs: 20_000, intervalMs: 250 });
    expect([...seen].sort()).toEqual(Object.keys(workflows).sort());
  });
});

describe("workflow ids say what the flow is", () => {
  it("names the users export and the restore of soft-deleted wallets", () => {
    expect(workflowIds.export("e")).toBe("users-export/e");
    expect(workflowIds.walletRecovery("env", "u")).toBe("deleted-wallets-restore/env/u");
    // Both on the interactive queue, as before.
    expect(taskQueues("q").interactive).toBe("q");
  });
});
