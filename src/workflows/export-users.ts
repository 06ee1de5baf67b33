import { proxyActivities, setCurrentDetails } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";

// Generation streams the users through a cursor and heartbeats at every stored chunk: a worker that dies
// mid-export is noticed within the heartbeat timeout and the next attempt starts over from a clean slate.
const { generateExport } = proxyActivities<Activities>({
  startToCloseTimeout: "2 hours",
  heartbeatTimeout: "30 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 5 },
});

const { markExportFailed } = proxyActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 20 },
});

export interface ExportInput {
  environmentId: string;
  exportId: string;
}

/**
 * Produces the file of one users export (workflow id users-export/<exportId>): pending -> running ->
 * completed, or failed once the generation has exhausted its retries. The failure detail stays in the
 * workflow history; the export row gets a message fit for the API.
 */
export async function exportUsersWorkflow(input: ExportInput) {
  setCurrentDetails("Generating the file (each attempt starts over).");
  try {
    const done = await generateExport(input);
    setCurrentDetails("Completed.");
    return done;
  } catch (err) {
    setCurrentDetails("Failed: the generation exhausted its retries (the error is in the history).");
    await markExportFailed({ ...input, error: "the export could not be generated; create a new export" });
    throw err;
  }
}
