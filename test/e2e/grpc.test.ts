import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";

const root = path.resolve(import.meta.dirname, "../..");
let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap();
});
afterAll(() => app?.stop());

/** Loads the project's own .proto files, the way any gRPC client would. */
function loadGrpc(file: string) {
  const def = protoLoader.loadSync(path.join(root, "proto", file), {
    includeDirs: [path.join(root, "proto"), path.join(root, "node_modules/google-proto-files")],
    keepCase: false,
    defaults: true,
  });
  return grpc.loadPackageDefinition(def) as any;
}

function unary<T>(client: any, method: string, req: unknown, meta: grpc.Metadata): Promise<T> {
  return new Promise((resolve, reject) => client[method](req, meta, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res))));
}

describe("gRPC with @grpc/grpc-js and the project's .proto files", () => {
  it("creates a token and reads a user", async () => {
    const pkg = loadGrpc("sigil/tokens/v0/tokens_service.proto");
    const client = new pkg.sigil.tokens.v0.TokensService(`127.0.0.1:${app.port}`, grpc.credentials.createInsecure());
    const meta = new grpc.Metadata();
    meta.set("authorization", `Bearer ${t.token}`);
    const res = await unary<any>(client, "CreateToken", { environmentId: t.environmentId, note: "grpc" }, meta);
    expect(res.token.rawToken).toMatch(/^sgl_[0-9a-f]{64}$/);
    expect(res.token.note).toBe("grpc");
    client.close();
  });

  it("maps errors to gRPC status codes", async () => {
    const pkg = loadGrpc("sigil/users/v0/users_service.proto");
    const client = new pkg.sigil.users.v0.UsersService(`127.0.0.1:${app.port}`, grpc.credentials.createInsecure());
    const meta = new grpc.Metadata();
    meta.set("authorization", `Bearer ${t.token}`);
    await expect(unary(client, "GetUser", { userId: "00000000-0000-4000-8000-000000000000" }, meta)).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    await expect(unary(client, "GetUser", { userId: "nope" }, meta)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(unary(client, "GetUser", { userId: "nope" }, new grpc.Metadata())).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    client.close();
  });
});

describe("Connect and gRPC clients from connect-es", () => {
  it("calls the same handlers over Connect (HTTP/1.1 and h2c), gRPC and gRPC-Web", async () => {
    const headers = { authorization: `Bearer ${t.token}` };
    const connect = createClient(UsersService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const created = await connect.createUser({ environmentId: t.environmentId, email: "connect@example.com" }, { headers });
    expect(created.user?.email).toBe("connect@example.com");
    const grpcClient = createClient(UsersService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const read = await grpcClient.getUser({ environmentId: t.environmentId, userId: created.user!.id }, { headers });
    expect(read.user?.id).toBe(created.user!.id);
    const tokens = createClient(TokensService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "2" }));
    const list = await tokens.listTokens({ environmentId: t.environmentId }, { headers });
    expect(list.count).toBeGreaterThan(0);
    const web = createClient(UsersService, createGrpcWebTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const viaWeb = await web.getUser({ userId: created.user!.id }, { headers });
    expect(viaWeb.user?.email).toBe("connect@example.com");
  });
});
