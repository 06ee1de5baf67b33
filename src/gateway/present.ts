import { isFieldSet, ScalarType, toJson, type DescField, type DescMessage, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
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
  return shape(schema, message, json);
}

/**
 * A field's value read straight off the message (protobuf-es keeps fields as plain properties and oneof
 * members under their group): the same as reflect()'s get, without a reflection object per message, which
 * showed in the profile of every REST answer.
 */
function valueOf(message: Message, field: DescField): unknown {
  const m = message as unknown as Record<string, unknown>;
  if (field.oneof) {
    const group = m[field.oneof.localName] as { case: string | undefined; value?: unknown };
    return group.case === field.localName ? group.value : undefined;
  }
  return m[field.localName];
}

function shape(desc: DescMessage, message: Message, json: JsonValue): JsonValue {
  if (hasCustomJsonRepresentation(desc)) return json;
  if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
  const obj: JsonObject = json;
  for (const field of desc.fields) {
    const key = field.jsonName;
    switch (field.fieldKind) {
      case "scalar":
        // isSet is false for an implicit-presence "" but true for an explicitly set oneof/optional "".
        if (field.scalar === ScalarType.STRING && !isFieldSet(message, field)) delete obj[key];
        break;
      case "message":
        if (isFieldSet(message, field)) obj[key] = shape(field.message, valueOf(message, field) as Message, obj[key]);
        else if (fieldRules(field)?.nullable) obj[key] = null;
        else delete obj[key];
        break;
      case "list": {
        const items = obj[key];
        if (field.listKind === "message" && Array.isArray(items)) {
          const list = valueOf(message, field) as Message[];
          for (let i = 0; i < list.length; i++) items[i] = shape(field.message, list[i], items[i]);
        }
        if (items === undefined) obj[key] = [];
        break;
      }
      case "map": {
        const values = obj[key];
        if (field.mapKind === "message" && values !== null && typeof values === "object" && !Array.isArray(values)) {
          const map = valueOf(message, field) as Record<string, Message>;
          for (const mk of Object.keys(map)) if (mk in values) values[mk] = shape(field.message, map[mk], values[mk]);
        }
        break;
      }
      case "enum":
        break;
    }
  }
  return obj;
}
