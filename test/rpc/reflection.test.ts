import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { file_sigil_tokens_v0_tokens_service, TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { file_sigil_wallets_v0_wallets_service } from "../../src/gen/sigil/wallets/v0/wallets_service_pb.js";
import { registerHealth } from "../../src/rpc/health.js";
import { registerReflection } from "../../src/rpc/reflection.js";

const PROTO_ROOT = "node_modules/@grpc/reflection/build/proto";
const loaderOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** Snake_case shapes of grpc.reflection.v1 as @grpc/proto-loader decodes them. */
interface ReflectionResponse {
  message_response: string;
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  list_services_response?: { service: { name: string }[] };
  all_extension_numbers_response?: { base_type_name: string; extension_number: number[] };
  error_response?: { error_code: number; error_message: string };
}

let server: http2.Http2Server;
let address: string;
const clients: grpc.Client[] = [];

function reflectionClient(version: "v1" | "v1alpha") {
  const def = protoLoader.loadSync(`grpc/reflection/${version}/reflection.proto`, { ...loaderOptions, includeDirs: [PROTO_ROOT] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }> };
  };
  const client = new pkg.grpc.reflection[version].ServerReflection(address, grpc.credentials.createInsecure());
  clients.push(client);
  return client;
}

/** Sends requests on one bidi stream and collects one answer per request, in order. */
function ask(client: grpc.Client, requests: object[]): Promise<ReflectionResponse[]> {
  return new Promise((resolve, reject) => {
    const call = (client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> }).ServerReflectionInfo();
    const answers: ReflectionResponse[] = [];
    call.on("data", (res: ReflectionResponse) => {
      answers.push(res);
      if (answers.length === requests.length) call.end();
    });
    call.on("error", reject);
    call.on("end", () => resolve(answers));
    for (const r of requests) call.write(r);
  });
}

const decodeFiles = (res: ReflectionResponse) =>
  (res.file_descriptor_response?.file_descriptor_proto ?? []).map((b) => fromBinary(FileDescriptorProtoSchema, b));

beforeAll(async () => {
  const routes = (router: ConnectRouter) => {
    router.service(TokensService, {});
    registerReflection(router, [file_sigil_tokens_v0_tokens_service, file_sigil_wallets_v0_wallets_service]);
    registerHealth(router, async () => "SERVING");
  };
  server = http2.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const c of clients) c.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("grpc.reflection.v1 over a real h2c server", () => {
  it("lists our services, health and reflection itself", async () => {
    const [res] = await ask(reflectionClient("v1"), [{ list_services: "*" }]);
    const names = res.list_services_response?.service.map((s) => s.name) ?? [];
    expect(names).toEqual(
      expect.arrayContaining([
        "sigil.tokens.v0.TokensService",
        "sigil.wallets.v0.WalletsService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
      ]),
    );
    expect(names).not.toContain("sigil.tokens.v0.Token");
  });

  it("answers file_containing_symbol with the file and all its dependencies", async () => {
    const [res] = await ask(reflectionClient("v1"), [{ file_containing_symbol: "sigil.tokens.v0.TokensService" }]);
    const files = decodeFiles(res);
    expect(files[0].name).toBe("sigil/tokens/v0/tokens_service.proto");
    expect(files[0].service[0].method.map((m) => m.name)).toEqual(["CreateToken", "ListTokens", "DeleteToken"]);
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        "sigil/tokens/v0/tokens.proto",
        "sigil/options/v0/options.proto",
        "google/api/annotations.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "google/protobuf/timestamp.proto",
      ]),
    );
    // Self-contained and in dependency order after the requested file: a client can rebuild every
    // descriptor from this answer alone.
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: [...files.slice(1), files[0]] }));
    expect(registry.getService("sigil.tokens.v0.TokensService")?.methods).toHaveLength(3);
  });

  it("finds methods, nested types and files by name, on one stream", async () => {
    const answers = await ask(reflectionClient("v1"), [
      { file_containing_symbol: "sigil.tokens.v0.TokensService.DeleteToken" },
      { file_containing_symbol: "sigil.wallets.v0.Wallet" },
      { file_by_filename: "sigil/wallets/v0/wallets_service.proto" },
    ]);
    expect(answers.map((a) => decodeFiles(a)[0]?.name)).toEqual([
      "sigil/tokens/v0/tokens_service.proto",
      "sigil/wallets/v0/wallets.proto",
      "sigil/wallets/v0/wallets_service.proto",
    ]);
  });

  it("answers NOT_FOUND in-band for unknown symbols and files", async () => {
    const answers = await ask(reflectionClient("v1"), [
      { file_containing_symbol: "sigil.nope.v0.Nothing" },
      { file_by_filename: "nope.proto" },
      { all_extension_numbers_of_type: "nope.Type" },
    ]);
    for (const a of answers) {
      expect(a.message_response).toBe("error_response");
      expect(a.error_response?.error_code).toBe(5);
    }
  });

  it("resolves extensions and lists extension numbers of a type", async () => {
    const [byExt, numbers] = await ask(reflectionClient("v1"), [
      { file_containing_extension: { containing_type: "google.protobuf.MethodOptions", extension_number: 72295728 } },
      { all_extension_numbers_of_type: "google.protobuf.MethodOptions" },
    ]);
    expect(decodeFiles(byExt)[0].name).toBe("google/api/annotations.proto");
    expect(numbers.all_extension_numbers_response?.base_type_name).toBe("google.protobuf.MethodOptions");
    expect(numbers.all_extension_numbers_response?.extension_number).toEqual(expect.arrayContaining([51001, 72295728]));
  });
});

describe("grpc.reflection.v1alpha", () => {
  it("serves the older service name with the same answers", async () => {
    const [list, file] = await ask(reflectionClient("v1alpha"), [
      { list_services: "" },
      { file_containing_symbol: "sigil.tokens.v0.TokensService" },
    ]);
    expect(list.list_services_response?.service.map((s) => s.name)).toContain("sigil.tokens.v0.TokensService");
    expect(decodeFiles(file)[0].name).toBe("sigil/tokens/v0/tokens_service.proto");
  });
});
