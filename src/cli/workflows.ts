import type { Config } from "../config.js";
import { findEnvironment } from "../db/repositories/tenancy.js";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";
import { durationArg, notFoundError, parseCommand, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { formatTable, printResult, usageError } from "./output.js";
import { connectTemporal } from "./services.js";

export const WORKFLOWS_USAGE = `usage: sigil workflows list --environment ID [--status failed|running|stuck] [--older-than DURATION] [--limit N] [--json]

  --status       failed: ended Failed or TimedOut; running: still running; stuck: running and started longer
                 ago than --older-than (default 10m). Without --status: failed and stuck ones.
  --older-than   only workflows started longer ago than this (90s, 10m, 2h, 7d)
  --limit        at most this many, newest first (default 100)`;

const DEFAULT_STUCK_AFTER_MS = 10 * 60_000;
const STATUSES = ["failed", "running", "stuck"] as const;
type StatusFilter = (typeof STATUSES)[number];

const FAILED = `(ExecutionStatus = "Failed" OR ExecutionStatus = "TimedOut")`;

/**
 * The visibility query of an environment's workflows: every Sigil workflow carries the environment as a
 * search attribute (src/temporal/search-attributes.ts), which is what the filter reads. A long-lived actor
 * continues as new well before ten minutes of work, so a run that old is a run that stopped moving.
 */
function workflowQuery(environmentId: string, status: StatusFilter | undefined, startedBefore: Date | undefined): string {
  const environment = `${SEARCH_ATTRIBUTES.environmentId.name} = "${environmentId}"`;
  const before = startedBefore ? ` AND StartTime < "${startedBefore.toISOString()}"` : "";
  const running = `ExecutionStatus = "Running"`;
  if (status === "failed") return `${environment} AND ${FAILED}${before}`;
  if (status === "running" || status === "stuck") return `${environment} AND ${running}${before}`;
  // Neither: failed ones whatever their age, running ones past the threshold.
  return `${environment} AND (${FAILED} OR (${running}${before}))`;
}

interface WorkflowRow {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  taskQueue: string;
  startTime: Date;
  closeTime: Date | null;
  /** Null once closed. */
  runningForSeconds: number | null;
}

/** `sigil workflows list`: an environment's failed or stuck workflows, from Temporal's visibility store. */
export async function workflowsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "list") throw usageError(sub ? `unknown subcommand workflows ${sub}` : "missing subcommand", WORKFLOWS_USAGE);
  const { values } = parseCommand(rest, { environment: { type: "string" }, status: { type: "string" }, "older-than": { type: "string" }, limit: { type: "string" } }, WORKFLOWS_USAGE);
  const environmentId = uuidArg(values.environment, "--environment", WORKFLOWS_USAGE);
  const status = values.status as StatusFilter | undefined;
  if (status !== undefined && !STATUSES.includes(status)) throw usageError(`--status must be one of ${STATUSES.join(", ")}, got "${status}"`, WORKFLOWS_USAGE);
  const olderThanMs =
    values["older-than"] !== undefined ? durationArg(values["older-than"], "--older-than", WORKFLOWS_USAGE) : status === "stuck" || status === undefined ? DEFAULT_STUCK_AFTER_MS : undefined;
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw usageError(`--limit must be a positive integer, got "${values.limit}"`, WORKFLOWS_USAGE);

  await withDatabase(
    config,
    async (db) => {
      if (!(await findEnvironment(db, environmentId))) throw notFoundError("environment", environmentId);
    },
    { migrate: false },
  );
  const now = Date.now();
  const startedBefore = olderThanMs === undefined ? undefined : new Date(now - olderThanMs);
  const query = workflowQuery(environmentId, status, startedBefore);
  const client = await connectTemporal(config);
  const workflows: WorkflowRow[] = [];
  try {
    for await (const w of client.workflow.list({ query })) {
      workflows.push({
        workflowId: w.workflowId,
        runId: w.runId,
        type: w.type,
        status: w.status.name,
        taskQueue: w.taskQueue,
        startTime: w.startTime,
        closeTime: w.closeTime ?? null,
        runningForSeconds: w.closeTime ? null : Math.round((now - w.startTime.getTime()) / 1000),
      });
      if (workflows.length >= limit) break;
    }
  } finally {
    await client.connection.close();
  }
  printResult(!!values.json, { query, workflows }, () =>
    formatTable(workflows, [
      { header: "workflow id", value: (w) => w.workflowId },
      { header: "type", value: (w) => w.type },
      { header: "status", value: (w) => w.status },
      { header: "started", value: (w) => w.startTime },
      { header: "closed / running for", value: (w) => w.closeTime ?? `${w.runningForSeconds} s` },
    ]),
  );
  return 0;
}
