import { randomUUID } from "node:crypto";
import { createClient, ConnectError } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { createLogger } from "../../src/log.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDualServer } from "../../src/server/listen.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let base: string;
let stopServer: () => Promise<void>;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `logs-${randomUUID()}@example.com` });
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const server = createDualServer(createApiHandler({ ...app.deps, log }, []));
  base = `http://127.0.0.1:${await server.listen(0, "127.0.0.1")}`;
  stopServer = () => server.close();
});
afterAll(async () => {
  await stopServer?.();
  await app?.stop();
});

const linesOf = (requestId: string) => lines.filter((l) => l.requestId === requestId);

describe("a REST call is logged once, with its route and HTTP status", () => {
  it("logs a 422 as method, route template, status 422, the error code and ms (not gRPC code 9 without a path)", async () => {
    const ext = `ext-${randomUUID()}`;
    expect((await call(base, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { externalUserId: ext } })).status).toBe(201);
    const dup = await call(base, "POST", `/environments/${t.environmentId}/users`, { token: t.token, body: { externalUserId: ext }, headers: { "x-request-id": "dup-user-0001" } });
    expect(dup.status).toBe(422);
    expect(dup.headers.get("x-request-id")).toBe("dup-user-0001");
    expect(linesOf("dup-user-0001")).toEqual([
      {
        time: expect.any(String),
        level: "info",
        msg: "http",
        requestId: "dup-user-0001",
        method: "POST",
        route: "/api/v0/environments/{environment_id}/users",
        status: 422,
        code: "external_user_id_already_exists",
        ms: expect.any(Number),
      },
    ]);
  });

  it("gives every answer a request id, its own when the caller's is not well-formed, and logs it", async () => {
    const res = await call(base, "GET", `/environments/${t.environmentId}/users`, { token: t.token, headers: { "x-request-id": "bad id; drop" } });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf(id)).toEqual([expect.objectContaining({ msg: "http", method: "GET", route: "/api/v0/environments/{environment_id}/users", status: 200 })]);

    // An answer the gateway gives by itself (no such route) has one too.
    const missing = await call(base, "GET", "/no/such/route");
    expect(missing.status).toBe(404);
    const missingId = missing.headers.get("x-request-id")!;
    expect(missingId).toBeTruthy();
    expect(linesOf(missingId)).toEqual([expect.objectContaining({ msg: "http", method: "GET", status: 404, code: "not_found" })]);
    expect(linesOf(missingId)[0]).not.toHaveProperty("route");
  });
});

describe("a Connect or gRPC call is logged once, with its procedure and code", () => {
  it.each([
    ["connect", createConnectTransport],
    ["grpc", createGrpcTransport],
  ] as const)("%s", async (name, transport) => {
    const client = createClient(UsersService, transport({ baseUrl: base, httpVersion: "2" }));
    const requestId = `rpc-log-${name}-1`;
    const err = await client
      .getUser({ environmentId: t.environmentId, userId: randomUUID() }, { headers: { authorization: `Bearer ${t.token}`, "x-request-id": requestId } })
      .catch((e: unknown) => e);
    expect(ConnectError.from(err).code).toBe(5);
    expect(linesOf(requestId)).toEqual([
      { time: expect.any(String), level: "info", msg: "rpc", requestId, procedure: "sigil.users.v0.UsersService/GetUser", code: "not_found", ms: expect.any(Number) },
    ]);
  });
});

describe("SIGIL_LOG_FORMAT=pretty", () => {
  it("writes one readable line per event", () => {
    const out: string[] = [];
    const log = createLogger("info", (l) => out.push(l), "pretty");
    log.info("http", { requestId: "r-1234567", method: "POST", route: "/api/v0/x/{id}", status: 201, ms: 3, note: "two words", skipped: undefined });
    log.debug("hidden");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  http requestId=r-1234567 method=POST route=\/api\/v0\/x\/\{id\} status=201 ms=3 note="two words"$/);
  });
});
