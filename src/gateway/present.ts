import { ScalarType, toJson, type DescMessage, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import { isReflectMessage, reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { fieldRules } from "../rpc/method-options.js";

/**
 * The REST JSON of a message. Proto3 JSON alone does not match the spec's documents, so after
 * `toJson(..., { alwaysEmitImplicit: true })` one schema-aware pass decides presence field by field:
 * - unset string fields disappear (the spec omits absent text rather than sending ""),
 * - booleans, numbers, enums and lists stay even at their zero value (`false`, `0`, `[]`),
 * - unset message fields disappear, except those marked `(sigil.options.v0.field).nullable`, which become
 *   `null` (e.g. `enabledAt: null` on a disabled provider).
 * Messages with a JSON form of their own (Timestamp, Struct, wrappers...) are left exactly as toJson wrote
 * them: a Struct's contents are user data, not our schema.
 */
export function presentMessage(schema: DescMessage, message: Message): JsonValue {
  const json = toJson(schema, message, { alwaysEmitImplicit: true });
  return shape(reflect(schema, message), json);
}

function shape(r: ReflectMessage, json: JsonValue): JsonValue {
  if (hasCustomJsonRepresentation(r.desc)) return json;
  if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
  const obj: JsonObject = json;
  for (const field of r.fields) {
    const key = field.jsonName;
    switch (field.fieldKind) {
      case "scalar":
        // isSet is false for an implicit-presence "" but true for an explicitly set oneof/optional "".
        if (field.scalar === ScalarType.STRING && !r.isSet(field)) delete obj[key];
        break;
      case "message":
        if (r.isSet(field)) obj[key] = shape(r.get(field), obj[key]);
        else if (fieldRules(field)?.nullable) obj[key] = null;
        else delete obj[key];
        break;
      case "list": {
        const list = r.get(field);
        if (field.listKind === "message" && Array.isArray(obj[key])) {
          const items = obj[key];
          let i = 0;
          for (const item of list) {
            if (isReflectMessage(item)) items[i] = shape(item, items[i]);
            i++;
          }
        }
        if (obj[key] === undefined) obj[key] = [];
        break;
      }
      case "map": {
        const values = obj[key];
        if (field.mapKind === "message" && values !== null && typeof values === "object" && !Array.isArray(values)) {
          for (const [k, v] of r.get(field)) {
            const mk = String(k);
            if (isReflectMessage(v) && mk in values) values[mk] = shape(v, values[mk]);
          }
        }
        break;
      }
      case "enum":
        break;
    }
  }
  return obj;
}
