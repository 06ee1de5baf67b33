import {
  create,
  mergeFromJson,
  ScalarType,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { isFieldError } from "@bufbuild/protobuf/reflect";
import { GatewayError } from "./errors.js";
import { resolveFieldPath, type Route } from "./rules.js";
import { fillUpdateMask } from "./update-mask.js";

/** What the gateway extracted from the HTTP request, before it knows the message. */
export interface RequestParts {
  pathParams: ReadonlyMap<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the rule takes no body or the request had none. */
  body: JsonValue | undefined;
}

/**
 * Builds the request message the way google.api.http transcoding does: body first, then path variables
 * (which win over body fields of the same name, so a body can never redirect a call to another resource),
 * then query parameters for the fields nothing else bound.
 */
export function buildRequestMessage(route: Route, parts: RequestParts): Message {
  const schema = route.method.input;
  const message = create(schema);
  const bound = new Set<DescField>();

  if (route.body !== "" && parts.body !== undefined) {
    applyBody(route, message, parts.body, bound);
  }

  const pathJson: JsonObject = {};
  for (const [fieldPath, raw] of parts.pathParams) {
    const fields = resolveFieldPath(schema, fieldPath, route.template);
    bound.add(fields[0]);
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      throw new GatewayError(400, "invalid_path_parameter", `malformed percent-encoding in path variable "${fieldPath}"`);
    }
    setAt(pathJson, fields, stringToJson(fields[fields.length - 1], [value]));
  }
  merge(schema, message, pathJson, "invalid_path_parameter");

  const queryJson: JsonObject = {};
  for (const key of new Set(parts.query.keys())) {
    // `filter[filterColumn]` (the bracket form many HTTP clients write for nested objects) means `filter.filterColumn`.
    const fields = findFieldPath(schema, key.replace(/\[([^\]]+)\]/g, ".$1"));
    // Unknown parameters are ignored, like unknown JSON fields: clients may add cache busters and the like.
    if (!fields || bound.has(fields[0])) continue;
    const leaf = fields[fields.length - 1];
    if (leaf.fieldKind === "map") continue;
    setAt(queryJson, fields, stringToJson(leaf, parts.query.getAll(key)));
  }
  merge(schema, message, queryJson, "invalid_query_parameter");
  return message;
}

function applyBody(route: Route, message: Message, body: JsonValue, bound: Set<DescField>): void {
  const schema = route.method.input;
  if (route.body === "*") {
    if (!isObject(body)) throw new GatewayError(400, "invalid_request_body", "request body must be a JSON object");
    // Fields the body mentions count as bound, so a query string cannot override them.
    for (const key of Object.keys(body)) {
      const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
      if (field) bound.add(field);
    }
    merge(schema, message, body, "invalid_request_body");
    fillUpdateMask(schema, message, body);
    return;
  }
  const fields = resolveFieldPath(schema, route.body, route.template);
  const leaf = fields[fields.length - 1];
  if (leaf.fieldKind === "message" && !isObject(body)) {
    throw new GatewayError(400, "invalid_request_body", "request body must be a JSON object");
  }
  bound.add(fields[0]);
  const json: JsonObject = {};
  setAt(json, fields, body);
  merge(schema, message, json, "invalid_request_body");
}

/**
 * protobuf-es rejects wrong types and invalid values with a FieldError naming the (possibly nested) field;
 * we surface that field to the client as a 400 and never let the request reach a handler.
 */
function merge(schema: DescMessage, message: Message, json: JsonObject, code: string): void {
  if (Object.keys(json).length === 0) return;
  try {
    mergeFromJson(schema, message, json, { ignoreUnknownFields: true });
  } catch (err) {
    const cause = err instanceof Error ? err.cause : undefined;
    if (isFieldError(cause)) {
      const desc = cause.field();
      const name = desc.kind === "field" ? desc.jsonName : desc.name;
      throw new GatewayError(400, code, `invalid value for field "${name}": ${cause.message}`, { field: name });
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new GatewayError(400, code, `invalid request: ${detail}`);
  }
}

/** Query keys may use the JSON name or the proto name, and dots to reach into message fields. */
function findFieldPath(schema: DescMessage, key: string): DescField[] | undefined {
  const out: DescField[] = [];
  let current: DescMessage | undefined = schema;
  for (const name of key.split(".")) {
    const field: DescField | undefined = current?.fields.find((f) => f.jsonName === name || f.name === name);
    if (!field) return undefined;
    out.push(field);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return out;
}

/** Places `value` at the JSON position of a field path, creating the intermediate objects. */
function setAt(target: JsonObject, fields: readonly DescField[], value: JsonValue): void {
  let obj = target;
  for (const f of fields.slice(0, -1)) {
    const next = obj[f.jsonName];
    if (!isObject(next)) obj[f.jsonName] = {};
    obj = obj[f.jsonName] as JsonObject;
  }
  obj[fields[fields.length - 1].jsonName] = value;
}

/**
 * Text from a URL (path variable or query values) as the JSON protobuf-es expects. Numbers and 64-bit
 * integers are accepted as strings by the JSON reader already; booleans and numeric enum values are not.
 */
function stringToJson(field: DescField, values: readonly string[]): JsonValue {
  if (field.fieldKind === "list") return values.map((v) => scalarText(field, v));
  // A singular field given twice takes the last value, as most HTTP frameworks do.
  return scalarText(field, values[values.length - 1]);
}

function scalarText(field: DescField, text: string): JsonValue {
  const scalar =
    field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar")
      ? field.scalar
      : undefined;
  if (scalar === ScalarType.BOOL) {
    if (text === "true") return true;
    if (text === "false") return false;
    return text; // rejected by the JSON reader with the field's name
  }
  const isEnum = field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum");
  if (isEnum && /^-?\d+$/.test(text)) return Number(text);
  return text;
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
