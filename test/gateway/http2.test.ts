import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { createRouterTransport } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRestGateway } from "../../src/gateway/index.js";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { testRoutes, type Seen } from "./fixtures.js";

/** The production server is HTTP/2 (h2c): the gateway must work on the http2 compat request/response too. */
let server: http2.Http2Server;
let session: http2.ClientHttp2Session;
const seen: Seen[] = [];

beforeAll(async () => {
  const routes = testRoutes(seen);
  const fallback = createRestGateway({ services: [TokensService], transport: createRouterTransport(routes), maxBodyBytes: 256 });
  server = http2.createServer(connectNodeAdapter({ routes, fallback }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  session.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function request(headers: http2.OutgoingHttpHeaders, chunks: string[] = []) {
  return new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const stream = session.request(headers);
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let body = "";
    stream.on("response", (h) => (responseHeaders = h));
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => (body += d));
    stream.on("end", () => resolve({ status: Number(responseHeaders[":status"]), headers: responseHeaders, body }));
    stream.on("error", reject);
    for (const c of chunks) stream.write(c);
    stream.end();
  });
}

describe("REST gateway over h2c", () => {
  it("transcodes a POST and sets the client ip from the HTTP/2 socket", async () => {
    seen.length = 0;
    const res = await request(
      { ":method": "POST", ":path": "/api/v0/environments/env-h2/tokens", "content-type": "application/json", "sigil-client-ip": "9.9.9.9" },
      [JSON.stringify({ note: "over h2" })],
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).token).toMatchObject({ note: "over h2", projectEnvironmentId: "env-h2" });
    expect(seen[0].headers.get("sigil-client-ip")).toBe("127.0.0.1");
  });

  it("stops reading a streamed HTTP/2 body past the limit", async () => {
    seen.length = 0;
    const res = await request(
      { ":method": "POST", ":path": "/api/v0/environments/env-h2/tokens", "content-type": "application/json" },
      Array.from({ length: 4 }, () => " ".repeat(100)),
    );
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({ code: "payload_too_large" });
    expect(seen).toHaveLength(0);
  });

  it("answers 404 through the adapter's fallback", async () => {
    const res = await request({ ":method": "GET", ":path": "/api/v0/unknown" });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: "not_found" });
  });
});
