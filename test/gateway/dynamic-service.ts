import { create, createFileRegistry, setExtension, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
  file_google_protobuf_timestamp,
} from "@bufbuild/protobuf/wkt";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../src/gen/google/api/http_pb.js";

/**
 * A service built at test time, because Sigil's own protos have no request with repeated, bool, enum or
 * 64-bit query parameters, nor two templates competing for one path. Declared in the order that would
 * pick the wrong route if specificity were ignored (`/v/{id}` before `/v/me`).
 */
export function dynamicService(): DescService {
  type FieldInit = MessageInitShape<typeof FieldDescriptorProtoSchema>;
  // protoc and buf always fill json_name, and protobuf-es relies on it; our names are single words.
  const field = (name: string, number: number, type: Type, extra: FieldInit = {}): FieldInit => ({
    name,
    jsonName: name,
    number,
    type,
    label: Label.OPTIONAL,
    ...extra,
  });
  const method = (name: string, rule: MessageInitShape<typeof HttpRuleSchema>) => {
    const options = create(MethodOptionsSchema);
    setExtension(options, http, create(HttpRuleSchema, rule));
    return { name, inputType: ".gwtest.Req", outputType: ".gwtest.Req", options };
  };
  const proto = create(FileDescriptorProtoSchema, {
    name: "gwtest/gwtest.proto",
    package: "gwtest",
    syntax: "proto3",
    dependency: ["google/protobuf/timestamp.proto"],
    enumType: [{ name: "Color", value: [{ name: "COLOR_UNSPECIFIED", number: 0 }, { name: "COLOR_RED", number: 1 }] }],
    messageType: [
      { name: "Inner", field: [field("name", 1, Type.STRING)] },
      {
        name: "Req",
        field: [
          field("id", 1, Type.STRING),
          field("tags", 2, Type.STRING, { label: Label.REPEATED }),
          field("flag", 3, Type.BOOL),
          field("color", 4, Type.ENUM, { typeName: ".gwtest.Color" }),
          field("limit", 5, Type.INT32),
          field("big", 6, Type.INT64),
          field("inner", 7, Type.MESSAGE, { typeName: ".gwtest.Inner" }),
          field("nums", 8, Type.INT32, { label: Label.REPEATED }),
          field("since", 9, Type.MESSAGE, { typeName: ".google.protobuf.Timestamp" }),
        ],
      },
    ],
    service: [
      {
        name: "Svc",
        method: [
          method("Get", { pattern: { case: "get", value: "/v/{id}" } }),
          method("Me", { pattern: { case: "get", value: "/v/me" } }),
          method("SetInner", { pattern: { case: "post", value: "/v/{id=*}/inner" }, body: "inner" }),
          method("Custom", { pattern: { case: "custom", value: { kind: "PURGE", path: "/v/{id}/cache" } } }),
        ],
      },
    ],
  });
  const registry = createFileRegistry(proto, (name) => (name === "google/protobuf/timestamp.proto" ? file_google_protobuf_timestamp : undefined));
  const service = registry.getService("gwtest.Svc");
  if (!service) throw new Error("gwtest.Svc not built");
  return service;
}
