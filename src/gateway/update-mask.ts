import { create, type DescMessage, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { fieldNamed, maskScopeOf, type MaskScope } from "../rpc/field-mask.js";

/**
 * An update whose request message has an `update_mask` (AIP-134) changes only what the request names. Over
 * REST the names are the body's own properties, as grpc-gateway fills the mask of a PATCH: every property
 * down to the leaves (a scalar, a list or null; an object is descended, so an empty one names nothing), so
 * that a body of {"security":{"mfa":{"enabled":true}}} names security.mfa.enabled and nothing beside it.
 * Paths use the fields' proto names; inside a google.protobuf.Struct (free-form JSON) the keys are kept as written.
 * Properties the message does not know are left out, as the body reader ignores them. A body that sets
 * the mask itself keeps it.
 */
export function fillUpdateMask(schema: DescMessage, message: Message, body: JsonObject): void {
  const maskField = schema.fields.find((f) => f.name === "update_mask" && f.message?.typeName === FieldMaskSchema.typeName);
  if (!maskField || "updateMask" in body || "update_mask" in body) return;
  const paths: string[] = [];
  collectPaths(schema, body, [], paths);
  (message as unknown as Record<string, unknown>)[maskField.localName] = create(FieldMaskSchema, { paths: paths.filter((p) => p !== maskField.name) });
}

function collectPaths(schema: MaskScope, body: JsonObject, prefix: string[], out: string[]): void {
  for (const [key, value] of Object.entries(body)) {
    let name = key;
    let next: MaskScope = "struct";
    if (schema !== "struct") {
      const field = schema && fieldNamed(schema, key);
      if (!field) continue;
      name = field.name;
      next = maskScopeOf(field);
    }
    const path = [...prefix, name];
    if (next && isObject(value)) collectPaths(next, value, path, out);
    else out.push(path.join("."));
  }
}

function isObject(v: JsonValue): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
