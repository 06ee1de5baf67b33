import { findFreePort } from "../infra/ports.js";

/**
 * The Temporal SDK's core (the worker's native part) keeps its own metrics: task slots, pollers, poll and
 * task latencies, workflows completed and failed per type. It can only export them itself, and a process has
 * one core runtime; so it serves them in the Prometheus format on a loopback port of this process's choosing,
 * and this process's /metrics fetches and appends them (./../observability/metrics/scrape.ts): one endpoint
 * for Prometheus to scrape.
 */
let coreMetricsUrl: string | undefined;

/** A free loopback port for the core's exporter (the core cannot bind port 0 and say which port it got). */
export async function freeLoopbackAddress(): Promise<string> {
  return `127.0.0.1:${await findFreePort()}`;
}

/** Set once the runtime with the exporter is installed. */
export function setCoreMetricsAddress(bindAddress: string): void {
  coreMetricsUrl = `http://${bindAddress}/metrics`;
}

/** The core's metrics text, or undefined when this process runs no worker (or the exporter did not answer in time). */
export async function scrapeCoreMetrics(timeoutMs: number): Promise<string | undefined> {
  if (!coreMetricsUrl) return undefined;
  try {
    const res = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}
