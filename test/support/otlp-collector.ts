import { createRequire } from "node:module";
import http from "node:http";
import { gunzipSync } from "node:zlib";

/** One span as an OTLP/HTTP collector received it (ids as hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  serviceName: string;
  attributes: Record<string, unknown>;
}

interface DecodedRequest {
  resourceSpans: {
    resource?: { attributes: KeyValue[] };
    scopeSpans: { spans: { traceId: Uint8Array; spanId: Uint8Array; parentSpanId?: Uint8Array; name: string; kind: number; attributes: KeyValue[] }[] }[];
  }[];
}
interface KeyValue {
  key: string;
  value?: { stringValue?: string; intValue?: number | { toNumber(): number }; boolValue?: boolean; doubleValue?: number };
}

// The OTLP protobuf types ship, generated with protobufjs, inside the exporter's transformer package.
const require = createRequire(import.meta.url);
const exporterDir = require.resolve("@opentelemetry/exporter-trace-otlp-proto");
const root = createRequire(exporterDir)("@opentelemetry/otlp-transformer/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): DecodedRequest } } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString("hex");

function valueOf(v: KeyValue["value"]): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.intValue !== undefined && v.intValue !== null) return typeof v.intValue === "number" ? v.intValue : v.intValue.toNumber();
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
  return v.doubleValue;
}

/**
 * A loopback OTLP/HTTP trace collector: decodes each protobuf export request (POST /v1/traces) and keeps its
 * spans; `requests` counts every request it got, whatever its path.
 */
export async function startOtlpCollector(): Promise<{ url: string; spans: ReceivedSpan[]; requests(): number; stop(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const decoded = ExportTraceServiceRequest.decode(body);
      for (const rs of decoded.resourceSpans) {
        const serviceName = String(valueOf(rs.resource?.attributes.find((a) => a.key === "service.name")?.value) ?? "");
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: hex(s.parentSpanId),
              name: s.name,
              kind: s.kind,
              serviceName,
              attributes: Object.fromEntries(s.attributes.map((a) => [a.key, valueOf(a.value)])),
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
