import http from "node:http";

/**
 * A loopback OTLP/HTTP endpoint that reads each export request and throws it away (200, empty body): what
 * a traced Sigil exports to in the benchmark, so that the cost measured is Sigil's (spans made, batched,
 * encoded and sent), not a collector's. Counts requests and bytes, to show that spans did flow.
 */
export async function startOtlpSink(): Promise<{ url: string; received(): { requests: number; bytes: number }; stop(): Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    requests++;
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ requests, bytes }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
