import {
  clone,
  create,
  createFileRegistry,
  fromBinary,
  toBinary,
  type DescExtension,
  type DescFile,
  type DescMessage,
  type DescMethodBiDiStreaming,
  type DescService,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  ErrorResponseSchema,
  ExtensionNumberResponseSchema,
  file_grpc_reflection_v1_reflection,
  FileDescriptorResponseSchema,
  ListServiceResponseSchema,
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../gen/grpc/reflection/v1/reflection_pb.js";
import { file_health_v1_health } from "../gen/health/v1/health_pb.js";

/** gRPC status codes used in error_response (the reflection protocol reports errors in-band). */
const GRPC_NOT_FOUND = 5;
const GRPC_INVALID_ARGUMENT = 3;

/**
 * gRPC server reflection (grpc.reflection.v1.ServerReflection), so grpcurl and friends can list and
 * describe our services without the .proto files. connect-es has no package for it; the descriptors are
 * already embedded in the generated code, so we index those.
 *
 * Also served as grpc.reflection.v1alpha.ServerReflection, the older name that many clients try first or
 * fall back to; its messages are wire-identical to v1.
 */
export function registerReflection(router: ConnectRouter, files: readonly DescFile[]): void {
  const alpha = v1alphaFile();
  const index = new ReflectionIndex([...files, file_health_v1_health, file_grpc_reflection_v1_reflection, alpha.file]);

  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) yield index.answer(req);
    },
  });

  // The v1alpha method has dynamic message types: convert through the shared wire format.
  const { method } = alpha;
  router.rpc(method, async function* (requests) {
    for await (const req of requests) {
      const v1 = fromBinary(ServerReflectionRequestSchema, toBinary(method.input, req));
      yield fromBinary(method.output, toBinary(ServerReflectionResponseSchema, index.answer(v1)));
    }
  });
}

/** Looks up files by name and by the symbols and extensions they declare, including their dependencies. */
export class ReflectionIndex {
  private readonly byName = new Map<string, DescFile>();
  private readonly bySymbol = new Map<string, DescFile>();
  /** extendee type name -> extension number -> declaring file */
  private readonly extensions = new Map<string, Map<number, DescFile>>();
  private readonly services: string[] = [];

  constructor(roots: readonly DescFile[]) {
    for (const root of roots) {
      for (const s of root.services) if (!this.services.includes(s.typeName)) this.services.push(s.typeName);
    }
    const visit = (file: DescFile) => {
      if (this.byName.has(file.proto.name)) return;
      this.byName.set(file.proto.name, file);
      this.indexFile(file);
      file.dependencies.forEach(visit);
    };
    roots.forEach(visit);
  }

  listServices(): readonly string[] {
    return this.services;
  }

  answer(req: ServerReflectionRequest): ServerReflectionResponse {
    const respond = (messageResponse: ServerReflectionResponse["messageResponse"]) =>
      create(ServerReflectionResponseSchema, { validHost: req.host, originalRequest: req, messageResponse });
    const error = (errorCode: number, errorMessage: string) =>
      respond({ case: "errorResponse", value: create(ErrorResponseSchema, { errorCode, errorMessage }) });
    const fileAnswer = (file: DescFile | undefined, what: string) => {
      if (!file) return error(GRPC_NOT_FOUND, `${what} not found`);
      const fileDescriptorProto = this.withDependencies(file).map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
      return respond({ case: "fileDescriptorResponse", value: create(FileDescriptorResponseSchema, { fileDescriptorProto }) });
    };

    const mr = req.messageRequest;
    switch (mr.case) {
      case "listServices": {
        const service = this.services.map((name) => ({ name }));
        return respond({ case: "listServicesResponse", value: create(ListServiceResponseSchema, { service }) });
      }
      case "fileByFilename":
        return fileAnswer(this.byName.get(mr.value), `file "${mr.value}"`);
      case "fileContainingSymbol":
        return fileAnswer(this.bySymbol.get(stripDot(mr.value)), `symbol "${mr.value}"`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = mr.value;
        const file = this.extensions.get(stripDot(containingType))?.get(extensionNumber);
        return fileAnswer(file, `extension ${extensionNumber} of "${containingType}"`);
      }
      case "allExtensionNumbersOfType": {
        const baseTypeName = stripDot(mr.value);
        if (!this.bySymbol.has(baseTypeName)) return error(GRPC_NOT_FOUND, `type "${mr.value}" not found`);
        const extensionNumber = [...(this.extensions.get(baseTypeName)?.keys() ?? [])].sort((a, b) => a - b);
        return respond({
          case: "allExtensionNumbersResponse",
          value: create(ExtensionNumberResponseSchema, { baseTypeName, extensionNumber }),
        });
      }
      default:
        return error(GRPC_INVALID_ARGUMENT, "empty reflection request");
    }
  }

  /**
   * The requested file first (clients take it as the answer), then every file it imports transitively, each
   * once and in dependency order, so a client can build its registry front to back.
   */
  withDependencies(file: DescFile): DescFile[] {
    const deps: DescFile[] = [];
    const seen = new Set<string>([file.proto.name]);
    const visit = (f: DescFile) => {
      for (const d of f.dependencies) {
        if (seen.has(d.proto.name)) continue;
        seen.add(d.proto.name);
        visit(d);
        deps.push(d);
      }
    };
    visit(file);
    return [file, ...deps];
  }

  private indexFile(file: DescFile): void {
    const addMessage = (m: DescMessage) => {
      this.bySymbol.set(m.typeName, file);
      for (const f of m.fields) this.bySymbol.set(`${m.typeName}.${f.name}`, file);
      for (const o of m.oneofs) this.bySymbol.set(`${m.typeName}.${o.name}`, file);
      m.nestedMessages.forEach(addMessage);
      for (const e of m.nestedEnums) this.bySymbol.set(e.typeName, file);
      m.nestedExtensions.forEach(addExtension);
    };
    const addExtension = (ext: DescExtension) => {
      this.bySymbol.set(ext.typeName, file);
      let numbers = this.extensions.get(ext.extendee.typeName);
      if (!numbers) this.extensions.set(ext.extendee.typeName, (numbers = new Map()));
      numbers.set(ext.number, file);
    };
    const addService = (s: DescService) => {
      this.bySymbol.set(s.typeName, file);
      for (const m of s.methods) this.bySymbol.set(`${s.typeName}.${m.name}`, file);
    };
    file.messages.forEach(addMessage);
    for (const e of file.enums) this.bySymbol.set(e.typeName, file);
    file.extensions.forEach(addExtension);
    file.services.forEach(addService);
  }
}

function stripDot(name: string): string {
  return name.startsWith(".") ? name.slice(1) : name;
}

/** The v1 reflection file renamed to v1alpha (same messages, same field numbers, other package). */
function v1alphaFile() {
  const proto = clone(FileDescriptorProtoSchema, file_grpc_reflection_v1_reflection.proto);
  const rename = (s: string) => s.replace(".grpc.reflection.v1.", ".grpc.reflection.v1alpha.");
  proto.name = "grpc/reflection/v1alpha/reflection.proto";
  proto.package = "grpc.reflection.v1alpha";
  proto.options = undefined;
  for (const m of proto.messageType) for (const f of m.field) f.typeName = rename(f.typeName);
  for (const s of proto.service) {
    for (const m of s.method) {
      m.inputType = rename(m.inputType);
      m.outputType = rename(m.outputType);
    }
  }
  const registry = createFileRegistry(proto, () => undefined);
  const file = registry.getFile(proto.name);
  const service = registry.getService("grpc.reflection.v1alpha.ServerReflection");
  const method = service?.methods[0];
  if (!file || method?.methodKind !== "bidi_streaming") throw new Error("cannot build grpc.reflection.v1alpha descriptors");
  return { file, method: method as DescMethodBiDiStreaming<DescMessage, DescMessage> };
}
