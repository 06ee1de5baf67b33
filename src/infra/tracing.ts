/**
 * OpenTelemetry tracing of the process, on only when an OTLP endpoint is configured (Config.tracing). Off, no
 * SDK starts, no module is patched and no span is made: the parts that trace (the HTTP server, the RPC
 * chain, the Temporal client and worker) ask `activeTracing()` once, when they are built, and are built as
 * before when it answers undefined.
 *
 * The tracer provider is the process's (OpenTelemetry's API is process-global): the first runtime that asks
 * starts it, the next ones share it, and it is shut down (its last spans flushed) when the last one stops.
 *
 * The standard OTEL_* variables apply: OTEL_SERVICE_NAME (default "sigil"), OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*; the SDK reads them itself.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { context, propagation, trace, type Tracer } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { TracingSettings } from "../config.js";
import { pgp } from "../db/db.js";
import { scrubStatement } from "./sql-scrub.js";

export interface Tracing {
  tracer: Tracer;
  /** What the Temporal worker hands its workflows' spans to (they are made inside the sandbox). */
  spanProcessor: SpanProcessor;
  resource: Resource;
}

const TRACER_NAME = "sigil";
const FLUSH_MS = 2_000;

let active: { tracing: Tracing; sdk: NodeSDK; unpatch: () => void; users: number } | undefined;
let starting: Promise<void> | undefined;

/** The process's tracing when it is on; undefined (and nothing else done) when it is off. */
export function activeTracing(): Tracing | undefined {
  return active?.tracing;
}

/**
 * Starts the process's tracing (or joins it when a runtime of this process already did); the returned stop
 * leaves it to the last user, which flushes, shuts it down and unregisters it (a start after that starts afresh).
 */
export async function startTracing(settings: TracingSettings): Promise<() => Promise<void>> {
  // The SDK's modules are loaded only here: a process that does not trace never loads them.
  starting ??= createSdk(settings).then((started) => {
    active = { ...started, users: 0 };
  });
  await starting;
  const own = active!;
  own.users++;
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    if (--own.users > 0) return;
    active = undefined;
    starting = undefined;
    // The last spans get FLUSH_MS: a collector that is down must not hold up the bounded stop (src/main.ts).
    await Promise.race([own.sdk.shutdown().catch(() => undefined), sleep(FLUSH_MS, undefined, { ref: false })]);
    own.unpatch();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

async function createSdk(settings: TracingSettings): Promise<{ tracing: Tracing; sdk: NodeSDK; unpatch: () => void }> {
  const [{ OTLPTraceExporter }, { PgInstrumentation }, resources, { NodeSDK }, { BatchSpanProcessor }, { ATTR_SERVICE_NAME }] = await Promise.all([
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/instrumentation-pg"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const { detectResourcesSync, envDetectorSync, hostDetectorSync, processDetectorSync, Resource } = resources;
  // The resource is built here rather than by the SDK, because the worker's workflow spans need it too.
  const detected = detectResourcesSync({ detectors: [envDetectorSync, processDetectorSync, hostDetectorSync] });
  const resource = detected.attributes[ATTR_SERVICE_NAME] ? detected : detected.merge(new Resource({ [ATTR_SERVICE_NAME]: "sigil" }));
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  const pg = new PgInstrumentation({
    // Only queries of a traced request or activity: the dispatcher's and reconciler's polls are no trace.
    requireParentSpan: true,
    // pg-promise formats most values into the text: the statement keeps its shape, never its values.
    requestHook: (span, info) => span.setAttribute("db.statement", scrubStatement(info.query.text)),
  });
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [spanProcessor],
    instrumentations: [pg],
    // No OTLP log export (the SDK would otherwise set one up from OTEL_LOGS_EXPORTER's default): logs go to stdout.
    logRecordProcessors: [],
  });
  sdk.start();
  // pg is loaded long before tracing starts (src/db/db.ts is imported by the runtime): its client is patched
  // here, on the very module pg-promise uses, rather than by a require hook that has missed its load.
  const [pgModule] = pg.getModuleDefinitions();
  pgModule?.patch?.(pgp.pg, undefined);
  const unpatch = () => void pgModule?.unpatch?.(pgp.pg, undefined);
  return { tracing: { tracer: trace.getTracer(TRACER_NAME), spanProcessor, resource }, sdk, unpatch };
}
