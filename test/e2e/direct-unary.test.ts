import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fromBinary, toBinary, create } from "@bufbuild/protobuf";
import { createClient, createContextValues, createRouterTransport } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { GetUserRequestSchema, GetUserResponseSchema, UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { clientIpKey } from "../../src/rpc/context.js";
import { createInterceptors } from "../../src/rpc/interceptors/index.js";
import { apiServices, createApiRoutes } from "../../src/rpc/routes.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDirectUnaryHandler } from "../../src/server/direct-unary/index.js";
import { createInProcessTransport } from "../../src/server/in-process-transport.js";
import { createDualServer } from "../../src/server/listen.js";
import { startTestApp, type TestApp } from "../support/app.js";

/**
 * Unary calls over Connect and gRPC are answered by src/server/direct-unary/ instead of connect-node's
 * protocol handlers. Here each request goes to two servers on the same deployment (same database, same
 * handlers): one where only that handler answers (anything it passes on is a 599, so a case it should serve
 * cannot silently fall through), and one where connect-node answers every RPC (SIGIL_DIRECT_UNARY=false).
 * Status, headers, trailers and body must be the same.
 */
let app: TestApp;
let t: BootstrapResult;
let userId: string;
const servers: { close(): Promise<void> }[] = [];
let direct: string;
let generic: string;
let directPort: number;
let genericPort: number;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap();
  const res = await fetch(`${app.baseUrl}/api/v0/environments/${t.environmentId}/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "connect-unary@example.com", firstName: "Ada" }),
  });
  expect(res.status).toBe(201);
  userId = ((await res.json()) as { user: { id: string } }).user.id;

  const routes = createApiRoutes(app.deps);
  const interceptors = createInterceptors(app.deps);
  const transport = createInProcessTransport(routes, interceptors, createRouterTransport(routes, { router: { interceptors } }));
  const only = createDirectUnaryHandler({
    services: apiServices,
    transport,
    readMaxBytes: app.config.maxBodyBytes,
    acceptCompression: [compressionGzip, compressionBrotli],
    compressMinBytes: 1024,
    contextValues: (req: { socket?: { remoteAddress?: string } | null }) => createContextValues().set(clientIpKey, req.socket?.remoteAddress ?? ""),
  });
  const d = createDualServer((req, res) => {
    if (!only(req, res)) res.writeHead(599).end();
  });
  const g = createDualServer(createApiHandler({ ...app.deps, config: { ...app.config, directUnary: false } }, []));
  servers.push(d, g);
  directPort = await d.listen(0, "127.0.0.1");
  genericPort = await g.listen(0, "127.0.0.1");
  direct = `http://127.0.0.1:${directPort}`;
  generic = `http://127.0.0.1:${genericPort}`;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await app?.stop();
});

const PATH = "/sigil.users.v0.UsersService/GetUser";
/** Headers that differ between any two answers (time, connection handling) and say nothing of the protocol. */
const VOLATILE = new Set(["date", "connection", "keep-alive"]);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function call(base: string, init: { headers?: Record<string, string>; body?: string | Uint8Array; path?: string; method?: string }): Promise<Answer> {
  const res = await fetch(base + (init.path ?? PATH), {
    method: init.method ?? "POST",
    headers: { "x-request-id": "connect-unary-test-1", ...init.headers },
    body: typeof init.body === "string" || init.body === undefined ? init.body : Buffer.from(init.body),
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => VOLATILE.has(k) || (headers[k] = v));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function same(init: Parameters<typeof call>[1]): Promise<Answer> {
  const [a, b] = [await call(direct, init), await call(generic, init)];
  expect(a.status).not.toBe(599);
  expect({ ...a, body: a.body.toString("base64") }).toEqual({ ...b, body: b.body.toString("base64") });
  return a;
}

const auth = () => ({ authorization: `Bearer ${t.token}` });
const json = (body: unknown) => JSON.stringify(body);

describe("Connect unary answered directly, the same as connect-node answers", () => {
  it("a JSON call: same status, headers and body", async () => {
    const a = await same({ headers: { ...auth(), "content-type": "application/json" }, body: json({ environmentId: t.environmentId, userId }) });
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body.toString()).user.id).toBe(userId);
    expect(a.headers["x-request-id"]).toBe("connect-unary-test-1");
  });

  it("JSON with a charset, and the binary codec", async () => {
    await same({ headers: { ...auth(), "content-type": "application/json; charset=utf-8" }, body: json({ environmentId: t.environmentId, userId }) });
    const bytes = toBinary(GetUserRequestSchema, create(GetUserRequestSchema, { environmentId: t.environmentId, userId }));
    const a = await same({ headers: { ...auth(), "content-type": "application/proto" }, body: bytes });
    expect(fromBinary(GetUserResponseSchema, a.body).user?.id).toBe(userId);
  });

  it("errors: unauthenticated, invalid, not found, another tenant's environment", async () => {
    const h = { "content-type": "application/json" };
    expect((await same({ headers: h, body: json({ environmentId: t.environmentId, userId }) })).status).toBe(401);
    expect((await same({ headers: { ...h, ...auth() }, body: json({ environmentId: t.environmentId, userId: "nope" }) })).status).toBe(400);
    expect((await same({ headers: { ...h, ...auth() }, body: json({ environmentId: t.environmentId, userId: crypto.randomUUID() }) })).status).toBe(404);
    const other = await app.bootstrap();
    expect((await same({ headers: { ...h, ...auth() }, body: json({ environmentId: other.environmentId, userId }) })).status).toBe(404);
  });

  it("bodies it cannot read: malformed JSON, wrong types, too large, empty; an unknown field is read alike", async () => {
    const h = { ...auth(), "content-type": "application/json" };
    for (const body of ["{", json({ environmentId: 5 }), "x".repeat(app.config.maxBodyBytes + 10), ""]) {
      const a = await same({ headers: h, body });
      expect(a.status, body.slice(0, 40)).toBeGreaterThanOrEqual(400);
    }
    await same({ headers: h, body: json({ environmentId: t.environmentId, userId, extra: 1 }) });
  });

  it("compression: a gzip request, a gzip answer, an encoding it does not know", async () => {
    const body = gzipSync(json({ environmentId: t.environmentId, userId }));
    const a = await same({ headers: { ...auth(), "content-type": "application/json", "content-encoding": "gzip", "accept-encoding": "gzip" }, body });
    expect(a.status).toBe(200);
    if (a.headers["content-encoding"] === "gzip") expect(JSON.parse(gunzipSync(a.body).toString()).user.id).toBe(userId);
    else expect(a.body.byteLength).toBeLessThan(1024);
    expect((await same({ headers: { ...auth(), "content-type": "application/json", "content-encoding": "zstd" }, body: "{}" })).status).toBe(501);
  });

  it("timeouts: a malformed connect-timeout-ms, and a roomy one", async () => {
    const h = { ...auth(), "content-type": "application/json" };
    const body = json({ environmentId: t.environmentId, userId });
    expect((await same({ headers: { ...h, "connect-timeout-ms": "soon" }, body })).status).toBe(400);
    expect((await same({ headers: { ...h, "connect-timeout-ms": "30000" }, body })).status).toBe(200);
  });

  it("passes on what it does not serve: GET, streams, gRPC-Web, other content types", async () => {
    const passed = async (init: Parameters<typeof call>[1]) => expect((await call(direct, init)).status).toBe(599);
    await passed({ method: "GET", path: `${PATH}?encoding=json&message=${encodeURIComponent(json({ environmentId: t.environmentId, userId }))}` });
    await passed({ headers: { ...auth(), "content-type": "application/connect+json" }, body: "" });
    await passed({ headers: { ...auth(), "content-type": "application/grpc-web+proto" }, body: "" });
    await passed({ headers: { ...auth(), "content-type": "text/plain" }, body: "{}" });
    await passed({ path: "/sigil.users.v0.UsersService/NoSuchMethod", headers: { "content-type": "application/json" }, body: "{}" });
  });

  it("the service's own wiring answers Connect over HTTP/1.1 and HTTP/2 alike", async () => {
    for (const httpVersion of ["1.1", "2"] as const) {
      const client = createClient(UsersService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion }));
      const res = await client.getUser({ environmentId: t.environmentId, userId }, { headers: auth() });
      expect(res.user?.id).toBe(userId);
      await expect(client.getUser({ environmentId: t.environmentId, userId: crypto.randomUUID() }, { headers: auth() })).rejects.toMatchObject({ code: 5 });
    }
  });
});

// ---- gRPC ----

const root = path.resolve(import.meta.dirname, "../..");
const usersPkg = () => {
  const def = protoLoader.loadSync(path.join(root, "proto", "sigil/users/v0/users_service.proto"), {
    includeDirs: [path.join(root, "proto"), path.join(root, "node_modules/google-proto-files")],
    defaults: true,
  });
  return (grpc.loadPackageDefinition(def) as any).sigil.users.v0;
};

interface GrpcAnswer {
  code: number;
  details: string;
  response?: unknown;
  headers: Record<string, unknown>;
  trailers: Record<string, unknown>;
}

/** One GetUser over gRPC with @grpc/grpc-js: the answer, the status and both sets of metadata. */
function grpcGetUser(port: number, request: unknown, meta: Record<string, string>, options: grpc.ChannelOptions = {}): Promise<GrpcAnswer> {
  const client = new (usersPkg().UsersService)(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options);
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries({ "x-request-id": "direct-unary-grpc-1", ...meta })) metadata.set(k, v);
  return new Promise((resolve) => {
    let headers: Record<string, unknown> = {};
    let response: unknown;
    const call = client.getUser(request, metadata, (err: grpc.ServiceError | null, res: unknown) => {
      response = err ? undefined : res;
    });
    call.on("metadata", (m: grpc.Metadata) => (headers = withoutVolatile(m.getMap())));
    call.on("status", (status: grpc.StatusObject) => {
      client.close();
      // Let the unary callback run first (it is called before "status" in grpc-js, but not promised).
      setImmediate(() => resolve({ code: status.code, details: status.details, response, headers, trailers: withoutVolatile(status.metadata.getMap()) }));
    });
  });
}

function withoutVolatile(map: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) if (!VOLATILE.has(k)) out[k] = Buffer.isBuffer(v) ? v.toString("base64") : v;
  return out;
}

async function sameGrpc(request: unknown, meta: Record<string, string>, options: grpc.ChannelOptions = {}): Promise<GrpcAnswer> {
  const a = await grpcGetUser(directPort, request, meta, options);
  const b = await grpcGetUser(genericPort, request, meta, options);
  expect(a.details).not.toMatch(/599/);
  expect(a).toEqual(b);
  return a;
}

describe("gRPC unary answered directly, the same as connect-node answers", () => {
  it("a call: same message, headers and trailers", async () => {
    const a = await sameGrpc({ environmentId: t.environmentId, userId }, auth());
    expect(a.code).toBe(grpc.status.OK);
    expect((a.response as { user: { id: string } }).user.id).toBe(userId);
    expect(a.headers["x-request-id"]).toBe("direct-unary-grpc-1");
  });

  it("errors: unauthenticated, invalid, not found, with their details and metadata", async () => {
    expect((await sameGrpc({ environmentId: t.environmentId, userId }, {})).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await sameGrpc({ environmentId: t.environmentId, userId: "nope" }, auth())).code).toBe(grpc.status.INVALID_ARGUMENT);
    const missing = await sameGrpc({ environmentId: t.environmentId, userId: crypto.randomUUID() }, auth());
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
    expect(missing.trailers["x-request-id"]).toBe("direct-unary-grpc-1");
  });

  it("compression both ways, a deadline, and a malformed timeout", async () => {
    const gzip = { "grpc.default_compression_algorithm": 2, "grpc.default_compression_level": 2 };
    expect((await sameGrpc({ environmentId: t.environmentId, userId }, auth(), gzip)).code).toBe(grpc.status.OK);
    expect((await sameGrpc({ environmentId: t.environmentId, userId }, { ...auth(), "grpc-timeout": "nonsense" })).code).not.toBe(grpc.status.OK);
  });

  it("connect-node's own gRPC client reads the direct answer", async () => {
    const client = createClient(UsersService, createGrpcTransport({ baseUrl: direct }));
    expect((await client.getUser({ environmentId: t.environmentId, userId }, { headers: auth() })).user?.id).toBe(userId);
    await expect(client.getUser({ environmentId: t.environmentId, userId: crypto.randomUUID() }, { headers: auth() })).rejects.toMatchObject({ code: 5 });
  });

  it("passes on gRPC-Web and gRPC over HTTP/1.1", async () => {
    const web = createClient(UsersService, createGrpcWebTransport({ baseUrl: direct, httpVersion: "1.1" }));
    await expect(web.getUser({ environmentId: t.environmentId, userId }, { headers: auth() })).rejects.toThrow(/599/);
    const res = await fetch(direct + PATH, { method: "POST", headers: { "content-type": "application/grpc" }, body: new Uint8Array(5) });
    expect(res.status).toBe(599);
  });
});
