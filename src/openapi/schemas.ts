import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import type { FieldRules } from "../gen/sigil/options/v0/options_pb.js";
import { fieldRules } from "../rpc/method-options.js";
import type { Describe, JsonSchema } from "./types.js";

/**
 * Which way a message travels decides its schema, because the gateway reads and writes JSON differently:
 * - "out" (an answer, src/gateway/present.ts): booleans, numbers, enums, bytes, lists and maps are always
 *   written, even at their zero value, so they are `required`; empty strings and unset messages are left
 *   out, except `nullable` messages, which are `null`; 64-bit integers are strings.
 * - "in" (a request, src/gateway/request.ts and the validation interceptor): nothing is required but what a
 *   field rule requires, the field rules become constraints, and 64-bit integers may be numbers or strings.
 */
export type Direction = "in" | "out";

/** A schema per message and direction, kept in `components`; recursive messages refer to themselves. */
export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};
  private readonly names = new Map<string, string>();
  private readonly taken = new Map<string, string>();

  constructor(private readonly describe: Describe = () => undefined) {}

  /** A `$ref` to the message's component, built on first use. */
  ref(message: DescMessage, direction: Direction): JsonSchema {
    const wkt = wellKnown(message, direction);
    if (wkt) return wkt;
    const key = `${direction}:${message.typeName}`;
    let name = this.names.get(key);
    if (!name) {
      name = this.nameFor(message, direction);
      this.names.set(key, name);
      // Placeholder first, so a message that contains itself finds its name.
      this.components[name] = {};
      this.components[name] = this.objectSchema(message, direction);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * The object schema of a message's fields, without the fields in `omit` (a request body's fields that the
   * path binds, which the path wins over).
   */
  objectSchema(message: DescMessage, direction: Direction, omit: ReadonlySet<DescField> = new Set()): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of [...message.fields].sort((a, b) => a.number - b.number)) {
      if (omit.has(field)) continue;
      const schema = this.fieldSchema(field, direction);
      const doc = this.describe(field);
      properties[field.jsonName] = doc ? { ...schema, description: doc } : schema;
      if (direction === "out" ? alwaysWritten(field) : isRequiredInput(field)) required.push(field.jsonName);
    }
    const out: JsonSchema = { type: "object", properties };
    if (required.length) out.required = required;
    const doc = this.describe(message);
    if (doc) out.description = doc;
    return out;
  }

  /** The schema of one field's JSON value. */
  fieldSchema(field: DescField, direction: Direction): JsonSchema {
    const rules = direction === "in" ? fieldRules(field) : undefined;
    switch (field.fieldKind) {
      case "scalar":
        return withRules(scalarSchema(field.scalar, direction), field, rules);
      case "enum":
        return enumSchema(field.enum);
      case "message": {
        const ref = this.ref(field.message, direction);
        if (direction === "in" && rules && field.message.typeName === "google.protobuf.ListValue") return listValueSchema(rules, field);
        if (direction === "out" && fieldRules(field)?.nullable) return { anyOf: [ref, { type: "null" }] };
        return ref;
      }
      case "list": {
        const items =
          field.listKind === "scalar"
            ? withRules(scalarSchema(field.scalar, direction), field, rules, true)
            : field.listKind === "enum"
              ? enumSchema(field.enum)
              : this.ref(field.message, direction);
        const out: JsonSchema = { type: "array", items };
        if (rules?.maxItems) out.maxItems = rules.maxItems;
        if (rules?.required) out.minItems = 1;
        return out;
      }
      case "map": {
        const values =
          field.mapKind === "scalar" ? scalarSchema(field.scalar, direction) : field.mapKind === "enum" ? enumSchema(field.enum) : this.ref(field.message, direction);
        return { type: "object", additionalProperties: values };
      }
    }
  }

  /** Component names: the message's own name, or its full name when two packages share one. */
  private nameFor(message: DescMessage, direction: Direction): string {
    const suffix = direction === "in" ? "Input" : "";
    let name = message.name + suffix;
    const owner = this.taken.get(name);
    if (owner !== undefined && owner !== message.typeName) name = message.typeName + suffix;
    this.taken.set(name, message.typeName);
    return name;
  }
}

/** Always present in an answer (src/gateway/present.ts, compileField). */
function alwaysWritten(field: DescField): boolean {
  if (field.fieldKind === "list" || field.fieldKind === "map") return true;
  if (field.fieldKind === "message") return !field.oneof && fieldRules(field)?.nullable === true;
  if (field.oneof || field.presence !== FeatureSet_FieldPresence.IMPLICIT) return false;
  return !(field.fieldKind === "scalar" && field.scalar === ScalarType.STRING);
}

/** A request field the validation interceptor refuses when absent or empty (src/rpc/validation.ts). */
function isRequiredInput(field: DescField): boolean {
  return fieldRules(field)?.required === true;
}

function enumSchema(e: DescEnum): JsonSchema {
  if (e.typeName === "google.protobuf.NullValue") return { type: "null" };
  // proto3 JSON writes an enum by its name; a request may also give the number.
  return { type: "string", enum: e.values.map((v) => v.name) };
}

function scalarSchema(scalar: ScalarType, direction: Direction): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", minimum: 0, maximum: 4294967295 };
    default:
      // 64-bit integers: proto3 JSON writes them as decimal strings (beyond 2^53 a JSON number loses digits)
      // and reads either form.
      return direction === "out" ? { type: "string", format: "int64", pattern: "^-?[0-9]+$" } : { type: ["string", "integer"], format: "int64" };
  }
}

/** google.protobuf's types with their own JSON form (proto3 JSON mapping). */
function wellKnown(message: DescMessage, direction: Direction): JsonSchema | undefined {
  switch (message.typeName) {
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Duration":
      return { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$", examples: ["1.5s"] };
    case "google.protobuf.FieldMask":
      return { type: "string", description: "Comma-separated field paths." };
    case "google.protobuf.Struct":
      return { type: "object", additionalProperties: true };
    case "google.protobuf.Value":
      return {};
    case "google.protobuf.ListValue":
      return { type: "array", items: {} };
    case "google.protobuf.Empty":
      return { type: "object" };
    case "google.protobuf.Any":
      return { type: "object", properties: { "@type": { type: "string" } }, required: ["@type"], additionalProperties: true };
    case "google.protobuf.BoolValue":
    case "google.protobuf.StringValue":
    case "google.protobuf.BytesValue":
    case "google.protobuf.DoubleValue":
    case "google.protobuf.FloatValue":
    case "google.protobuf.Int32Value":
    case "google.protobuf.UInt32Value":
    case "google.protobuf.Int64Value":
    case "google.protobuf.UInt64Value":
      // A wrapper is written as the value it wraps.
      return scalarSchema(message.fields[0].scalar!, direction);
    default:
      return undefined;
  }
}

/**
 * A string's field rules as constraints. The rules check a non-empty value only (an empty optional string
 * passes them), so a field that is not `required` also accepts "" unless only named values are allowed on
 * a field with presence (src/rpc/validation.ts, checkString). An item of a list is held to them even when
 * empty (`item`): an empty item is a value sent, not a field left unset.
 */
function withRules(base: JsonSchema, field: DescField, rules: FieldRules | undefined, item = false): JsonSchema {
  if (!rules || base.type !== "string") return base;
  const c: JsonSchema = { ...base };
  if (rules.uuid) {
    c.format = "uuid";
    c.pattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
  }
  if (rules.minLen) c.minLength = rules.minLen;
  if (rules.maxLen) c.maxLength = rules.maxLen;
  if (rules.allowed.length) c.enum = [...rules.allowed];
  if (rules.pattern && !rules.uuid) c.pattern = rules.pattern;
  if (rules.email) c.format = "email";
  if (rules.url) c.format = "uri";
  const constrained = Object.keys(c).length > Object.keys(base).length;
  if (item) return c;
  if (rules.required) return { ...c, minLength: Math.max(1, rules.minLen) };
  if (!constrained) return base;
  const emptyRefused = rules.allowed.length > 0 && field.presence === FeatureSet_FieldPresence.EXPLICIT;
  return emptyRefused ? c : { anyOf: [c, { type: "string", const: "" }] };
}

/** A ListValue with item rules: a list whose absence differs from an empty one. */
function listValueSchema(rules: FieldRules, field: DescField): JsonSchema {
  const out: JsonSchema = { type: "array", items: rules.stringItems ? withRules({ type: "string" }, field, rules, true) : {} };
  if (rules.minItems) out.minItems = rules.minItems;
  if (rules.maxItems) out.maxItems = rules.maxItems;
  return out;
}
