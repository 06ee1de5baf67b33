import http from "node:http";
import type net from "node:net";
import { serveOperatorPath, type OperatorEndpoints } from "./probes.js";

/**
 * The HTTP listener of a worker-only process (`sigil start worker`, SIGIL_WORKER_PORT): /metrics, /livez and
 * /readyz, nothing else (a worker serves no API). An api process serves the same paths on its API port.
 */
export async function startWorkerListener(endpoints: OperatorEndpoints, port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (serveOperatorPath(endpoints, path, req, res)) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: `no route for ${req.method} ${path}: a worker serves GET /metrics, /livez and /readyz`, code: "not_found" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
