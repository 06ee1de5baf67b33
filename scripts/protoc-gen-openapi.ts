/**
 * protoc-gen-openapi: the buf plugin that writes src/gen/openapi.json, the OpenAPI 3.1 document of the REST
 * API, from the protos' google.api.http bindings (buf.gen.openapi.yaml; `npm run gen` runs it after the
 * protobuf-es code exists, because the document reads the options through that code: src/openapi/).
 * It documents every service of the request that has REST bindings; test/openapi/routes.test.ts holds the
 * result to the gateway's route table of the services the server mounts, route by route.
 *
 * Options: `spec=<path>` the contract's operations table (default docs/spec/operations.md), whose names
 * become the operationIds of the operations it lists.
 */
import { existsSync, readFileSync } from "node:fs";
import { create, createFileRegistry, hasOption, protoInt64, type DescService } from "@bufbuild/protobuf";
import { CodeGeneratorResponse_Feature, CodeGeneratorResponseSchema, FileDescriptorSetSchema, type CodeGeneratorRequest } from "@bufbuild/protobuf/wkt";
import { getComments, runNodeJs, type Plugin } from "@bufbuild/protoplugin";
import { http } from "../src/gen/google/api/annotations_pb.js";
import { buildOpenApiDocument } from "../src/openapi/document.js";
import { specOperationNames } from "../src/openapi/spec-names.js";
import { declaredErrors } from "../src/rpc/declared-errors.js";

const plugin: Plugin = {
  name: "protoc-gen-openapi",
  version: "v1",
  run(request: CodeGeneratorRequest) {
    const options = new Map(
      request.parameter
        .split(",")
        .filter(Boolean)
        .map((kv) => kv.split("=") as [string, string]),
    );
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: request.protoFile }));
    const services: DescService[] = [];
    for (const name of request.fileToGenerate) {
      const file = registry.getFile(name);
      for (const service of file?.services ?? []) {
        if (service.methods.some((m) => hasOption(m, http))) services.push(service);
      }
    }
    const specPath = options.get("spec") ?? "docs/spec/operations.md";
    const document = buildOpenApiDocument({
      services,
      version: (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version,
      describe: (desc) => {
        if (desc.kind === "file") return undefined;
        const text = getComments(desc as Parameters<typeof getComments>[0]).leading?.trim();
        return text ? text.replace(/^ /gm, "") : undefined;
      },
      specNames: existsSync(specPath) ? specOperationNames(readFileSync(specPath, "utf8")) : undefined,
      declaredErrors: (route) => declaredErrors(route.method),
    });
    return create(CodeGeneratorResponseSchema, {
      supportedFeatures: protoInt64.parse(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL),
      file: [{ name: "openapi.json", content: JSON.stringify(document) + "\n" }],
    });
  },
};

runNodeJs(plugin);
