/**
 * Temporal's part of a trace (@temporalio/interceptors-opentelemetry): the client puts the caller's span
 * into a workflow's start (and update, signal) headers, the workflow's own spans continue it inside the
 * sandbox and pass it on to its activities, whose spans the worker makes. All of it only while the
 * process traces (../infra/tracing.ts); otherwise the client and worker are built exactly as without it.
 */
import { createRequire } from "node:module";
import type { WorkflowClientInterceptor } from "@temporalio/client";
import type { WorkerOptions } from "@temporalio/worker";
import { activeTracing } from "../infra/tracing.js";

const require = createRequire(import.meta.url);

/**
 * The module the workflow bundle of a tracing worker includes (../temporal/workflow-bundle.ts); a bundle
 * without it runs no span code at all.
 */
export function tracedWorkflowModules(): string[] {
  return [require.resolve("@temporalio/interceptors-opentelemetry/lib/workflow-interceptors")];
}

/** The workflow client interceptors of a tracing process; none otherwise. */
export async function tracingClientInterceptors(): Promise<WorkflowClientInterceptor[]> {
  if (!activeTracing()) return [];
  const { OpenTelemetryWorkflowClientInterceptor } = await import("@temporalio/interceptors-opentelemetry/lib/client/index.js");
  return [new OpenTelemetryWorkflowClientInterceptor()];
}

/**
 * A worker's interceptors and sinks when the process traces: activity spans (children of the workflow span
 * that scheduled them) and the sink through which the sandbox's workflow spans reach the process's exporter.
 */
export async function tracingWorkerOptions(): Promise<Pick<WorkerOptions, "interceptors" | "sinks">> {
  const tracing = activeTracing();
  if (!tracing) return {};
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = await import(
    "@temporalio/interceptors-opentelemetry/lib/worker/index.js"
  );
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
