import type { Deps } from "../../domain/deps.js";
import { webhookBacklog } from "../../db/repositories/webhook-backlog.js";
import { metricsText } from "../../server/metrics.js";
import { scrapeCoreMetrics } from "../../temporal/core-metrics.js";
import type { ProcessMetrics } from "./process-metrics.js";

/** A scrape answers within this even when a dependency hangs (a gauge it could not read keeps its last value). */
const READ_TIMEOUT_MS = 1_500;

/**
 * The /metrics text of a process: its registry (after reading the gauges that are read at scrape: the
 * database pool, a store ping, the webhook backlog), the stale-work gauges (../../server/metrics.ts), and the
 * Temporal worker core's own metrics when this process runs a worker.
 */
export async function scrapeMetrics(metrics: ProcessMetrics, deps: Pick<Deps, "db" | "store" | "config">): Promise<string> {
  const m = metrics.instruments;
  const pool = deps.db.$pool;
  m.poolConnections.set({ state: "total" }, pool.totalCount);
  m.poolConnections.set({ state: "idle" }, pool.idleCount);
  m.poolConnections.set({ state: "waiting" }, pool.waitingCount);
  const [, , stale, core] = await Promise.all([
    readStore(metrics, deps),
    bounded(webhookBacklog(deps.db)).then((b) => {
      if (!b) return;
      m.webhookBacklog.set({ state: "undispatched" }, b.undispatched);
      m.webhookBacklog.set({ state: "new" }, b.new);
      m.webhookBacklog.set({ state: "retrying" }, b.retrying);
      m.webhookBacklog.set({ state: "in_flight" }, b.inFlight);
      m.webhookOldestPending.set(b.oldestPendingSeconds);
    }),
    bounded(metricsText(deps)),
    scrapeCoreMetrics(READ_TIMEOUT_MS),
  ]);
  return [await m.registry.metrics(), stale ?? "", core ?? ""].filter((s) => s !== "").join("\n");
}

async function readStore(metrics: ProcessMetrics, deps: Pick<Deps, "store" | "config">): Promise<void> {
  const labels = { store: deps.config.redisUrl ? "redis" : "in_process" };
  const started = performance.now();
  const up = await bounded(deps.store.ping());
  metrics.instruments.storeUp.set(labels, up ? 1 : 0);
  if (up) metrics.instruments.storePing.set(labels, (performance.now() - started) / 1000);
}

/** The value, or undefined when it failed or took longer than READ_TIMEOUT_MS. */
async function bounded<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), READ_TIMEOUT_MS)));
  return Promise.race([work.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}
