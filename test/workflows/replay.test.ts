import { readFileSync } from "node:fs";
import path from "node:path";
import { Worker } from "@temporalio/worker";
import { expect, it } from "vitest";
import { testWorkflowBundle } from "../support/workflow-bundle.js";

// Replays committed histories of real runs against today's workflow code: a change that would make a
// running flow non-deterministic throws DeterminismViolationError here and fails CI. No server needed.
// webhook-endpoint*.json (scripts/record-webhook-endpoint-history.ts): the endpoint actor's run with a retry
// sleep, a wake cutting it short and a continue-as-new, then the next run's batch and idle end.
const histories = [
  "wallet-recovery.json",
  "export-users.json",
  "webhook-delivery.json",
  "webhook-delivery-local-attempt.json",
  "webhook-endpoint.json",
  "webhook-endpoint-idle.json",
  // Since the patch wake-consumed-by-batch: a wake is answered by the batch it precedes (3 batches, not 4).
  "webhook-endpoint-wake-consumed.json",
  "webhook-endpoint-wake-consumed-idle.json",
];

it.each(histories)("replays %s deterministically", async (file) => {
  const json = JSON.parse(readFileSync(path.join(import.meta.dirname, "histories", file), "utf8"));
  expect(json.events.length).toBeGreaterThan(5);
  const workflowBundle = await testWorkflowBundle();
  // The worker converts the JSON history itself (historyFromJSON here would meet a second protobufjs copy).
  await Worker.runReplayHistory({ workflowBundle }, json, `replay-${file}`);
});
