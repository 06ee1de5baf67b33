import { create, isMessage, ScalarType, toJson, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { fieldRules } from "../rpc/method-options.js";

/**
 * The REST JSON of a handler's result, written straight to text in one pass. Proto3 JSON alone does not match
 * the spec's documents, so presence is decided field by field:
 * - unset string fields are left out (the spec omits absent text rather than sending ""),
 * - booleans, numbers, enums, lists and maps stay even at their zero value (`false`, `0`, `[]`, `{}`),
 * - unset message fields are left out, except those marked `(sigil.options.v0.field).nullable`, which are
 *   `null` (e.g. `enabledAt: null` on a disabled provider).
 * Values are written as proto3 JSON writes them (int64 as strings, enums by name, bytes in base64, Timestamp
 * in RFC 3339); a Struct's contents are user data and are written as they are.
 *
 * The result may be a protobuf-es message or its init shape (a plain object where absent fields are simply
 * missing): the REST path presents what the handler returned without building the message first, which
 * together with writing text directly (no intermediate JSON object walked twice) was about a third of a
 * REST answer's CPU for a page of users (docs/benchmarks.md). test/gateway/present.test.ts holds this to
 * `toJson(create(...))` plus the presence rules, on random messages of every response type.
 */
export function presentJson(schema: DescMessage, value: unknown): string {
  return messageWriter(schema, REST)(value);
}

/** The JSON text of one field of `parent`, or undefined where the field is left out. */
export function presentFieldJson(field: DescField, parent: unknown): string | undefined {
  return fieldWriter(field, REST)(parent as Fields);
}

/**
 * Proto3's canonical JSON of a message or its init shape, exactly as protobuf-es's `toJsonString` writes it
 * with its default options (fields in number order, zero values of implicit fields left out), for the
 * Connect protocol's JSON answers (src/server/direct-unary/connect.ts): the same compiled writer, without
 * building the message first. test/gateway/present.test.ts holds it to toJsonString byte for byte.
 */
export function protoJson(schema: DescMessage, value: unknown): string {
  return messageWriter(schema, PROTO3)(value);
}

/** Which presence rules a writer follows: the REST documents' (see presentJson) or proto3 JSON's. */
interface Style {
  /** Implicit-presence zeros, empty lists and maps are written (REST) or left out (proto3). */
  writeZeros: boolean;
  /** Unset `nullable` message fields are null (REST) or left out (proto3). */
  nullables: boolean;
  messages: WeakMap<DescMessage, Write>;
  fields: WeakMap<DescField, WriteField>;
}
const REST: Style = { writeZeros: true, nullables: true, messages: new WeakMap(), fields: new WeakMap() };
const PROTO3: Style = { writeZeros: false, nullables: false, messages: new WeakMap(), fields: new WeakMap() };

type Fields = Record<string, unknown>;
/** A message's or a value's JSON text. */
type Write = (value: unknown) => string;
/** A field's JSON text read off its message, or undefined to leave the field out. */
type WriteField = (message: Fields) => string | undefined;

function messageWriter(desc: DescMessage, style: Style): Write {
  let write = style.messages.get(desc);
  if (write) return write;
  if (hasCustomJsonRepresentation(desc)) {
    write = wellKnownWriter(desc);
    style.messages.set(desc, write);
    return write;
  }
  // Registered before the fields compile, so a recursive type finds itself.
  let body: Write = () => "{}";
  write = (value) => body(value);
  style.messages.set(desc, write);
  const fields = desc.fields.concat().sort((a, b) => a.number - b.number);
  const keys = fields.map((f) => JSON.stringify(f.jsonName) + ":");
  const writers = fields.map((f) => fieldWriter(f, style));
  body = (value) => {
    const m = (value ?? {}) as Fields;
    let out = "{";
    for (let i = 0; i < writers.length; i++) {
      const text = writers[i](m);
      if (text !== undefined) out += (out.length > 1 ? "," : "") + keys[i] + text;
    }
    return out + "}";
  };
  return write;
}

function fieldWriter(field: DescField, style: Style): WriteField {
  let write = style.fields.get(field);
  if (!write) {
    write = compileField(field, style);
    style.fields.set(field, write);
  }
  return write;
}

function compileField(field: DescField, style: Style): WriteField {
  const local = field.localName;
  switch (field.fieldKind) {
    case "list": {
      const item = field.listKind === "message" ? messageFieldValue(field.message, isStructField(field), false, style) : singularValue(field);
      const empty = style.writeZeros ? "[]" : undefined;
      return (m) => {
        const list = m[local] as unknown[] | undefined;
        if (!list || list.length === 0) return empty;
        let out = "[";
        for (let i = 0; i < list.length; i++) out += (i ? "," : "") + item(list[i]);
        return out + "]";
      };
    }
    case "map": {
      const entry = field.mapKind === "message" ? messageFieldValue(field.message, isStructField(field), false, style) : singularValue(field);
      const empty = style.writeZeros ? "{}" : undefined;
      return (m) => {
        const map = m[local] as Fields | undefined;
        let out = "{";
        if (map) for (const key of Object.keys(map)) out += (out.length > 1 ? "," : "") + JSON.stringify(key) + ":" + entry(map[key]);
        return out.length > 1 ? out + "}" : empty;
      };
    }
    case "message": {
      const value = messageFieldValue(field.message, isStructField(field), !field.oneof && isWrapperDesc(field.message), style);
      const absent = style.nullables && fieldRules(field)?.nullable ? "null" : undefined;
      if (field.oneof) {
        const group = field.oneof.localName;
        return (m) => {
          const g = m[group] as { case?: string; value?: unknown } | undefined;
          return g?.case === local ? value(g.value) : absent;
        };
      }
      return (m) => (m[local] === undefined ? absent : value(m[local]));
    }
    case "scalar":
    case "enum": {
      const value = singularValue(field);
      if (field.oneof) {
        const group = field.oneof.localName;
        return (m) => {
          const g = m[group] as { case?: string; value?: unknown } | undefined;
          return g?.case === local ? value(g.value) : undefined;
        };
      }
      if (field.presence !== IMPLICIT) return (m) => (m[local] === undefined ? undefined : value(m[local]));
      // Implicit presence: an absent value is the zero value. "" is always left out (the spec omits absent
      // text); other zeros are written for REST and left out in proto3 JSON.
      const isZero = zeroTest(field);
      if (!style.writeZeros || (field.fieldKind === "scalar" && field.scalar === ScalarType.STRING)) {
        return (m) => (isZero(m[local]) ? undefined : value(m[local]));
      }
      const zero = value(field.fieldKind === "enum" ? field.enum.values[0].number : scalarZero(field.scalar));
      return (m) => (m[local] === undefined ? zero : value(m[local]));
    }
  }
}

/** Whether an implicit field's value (undefined in an init shape) is its zero value, as protobuf-es decides. */
function zeroTest(field: DescField & { fieldKind: "scalar" | "enum" }): (v: unknown) => boolean {
  if (field.fieldKind === "enum") {
    const zero = field.enum.values[0].number;
    return (v) => v === undefined || v === zero;
  }
  switch (field.scalar) {
    case ScalarType.STRING:
      return (v) => v === undefined || v === "";
    case ScalarType.BOOL:
      return (v) => v === undefined || v === false;
    case ScalarType.BYTES:
      return (v) => v === undefined || (v as Uint8Array).byteLength === 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      // -0 is not the zero value in proto3 JSON (it is written).
      return (v) => v === undefined || Object.is(v, 0);
    default:
      // 0, 0n and "0" alike.
      return (v) => v === undefined || v == 0;
  }
}

/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT (proto3 fields without `optional`). */
const IMPLICIT = 2;

/** Struct fields (not inside a Value) hold a plain JSON object in protobuf-es, which is its JSON already. */
function isStructField(field: DescField): boolean {
  return field.message?.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value";
}

/** The writer of a message-typed value as the field holds it (a Struct's JSON, a wrapper's scalar, a message). */
function messageFieldValue(desc: DescMessage, structAsJson: boolean, unwrapped: boolean, style: Style): Write {
  if (structAsJson) return (v) => JSON.stringify(v);
  if (unwrapped) return scalarValue(desc.fields[0].scalar!);
  return messageWriter(desc, style);
}

function wellKnownWriter(desc: DescMessage): Write {
  if (desc.typeName === "google.protobuf.Timestamp") return (v) => `"${timestampText(v as { seconds?: bigint | number | string; nanos?: number })}"`;
  // Any, Duration, FieldMask, Value, ListValue, Struct inside a Value, wrappers in a oneof or a list: rare in
  // answers, so protobuf-es writes them.
  return (v) => JSON.stringify(toJson(desc, isMessage(v, desc) ? v : create(desc, v as never)));
}

/** Timestamp as proto3 JSON writes it: RFC 3339 in UTC with 0, 3, 6 or 9 fraction digits. */
function timestampText(t: { seconds?: bigint | number | string; nanos?: number }): string {
  const seconds = Number(t.seconds ?? 0);
  const nanos = t.nanos ?? 0;
  // 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z, as protobuf-es checks.
  if (!(seconds >= -62135596800 && seconds <= 253402300799) || !(nanos >= 0 && nanos <= 999999999)) {
    throw new Error("cannot encode google.protobuf.Timestamp to JSON: out of range");
  }
  const whole = wholeSecondsText(seconds);
  if (nanos === 0) return whole + "Z";
  const digits = String(nanos + 1000000000).slice(1);
  if (digits.endsWith("000000")) return `${whole}.${digits.slice(0, 3)}Z`;
  if (digits.endsWith("000")) return `${whole}.${digits.slice(0, 6)}Z`;
  return `${whole}.${digits}Z`;
}

/**
 * "YYYY-MM-DDTHH:MM:SS" of a whole number of seconds since the epoch. A page of users holds hundreds of
 * timestamps over a few days, so the date part is kept per day and the time part is arithmetic: about a
 * sixth of the cost of new Date(ms).toISOString(), which was 6 % of a page's CPU.
 */
function wholeSecondsText(seconds: number): string {
  const day = Math.floor(seconds / 86400);
  let rest = seconds - day * 86400;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  return dayText(day) + TWO_DIGITS[hours] + ":" + TWO_DIGITS[minutes] + ":" + TWO_DIGITS[rest - minutes * 60];
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
const dayTexts = new Map<number, string>();

/** "YYYY-MM-DDT" of a day since the epoch; at most 4,096 days are kept. */
function dayText(day: number): string {
  let text = dayTexts.get(day);
  if (text === undefined) {
    if (dayTexts.size >= 4096) dayTexts.clear();
    text = new Date(day * 86400000).toISOString().slice(0, 11);
    dayTexts.set(day, text);
  }
  return text;
}

function singularValue(field: DescField): Write {
  if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum") || (field.fieldKind === "map" && field.mapKind === "enum")) {
    const e = field.enum!;
    if (e.typeName === "google.protobuf.NullValue") return () => "null";
    // proto3 JSON writes an enum value by its name.
    const names = new Map(e.values.map((v) => [v.number, JSON.stringify(v.name)]));
    // An unknown number is written as the number, as proto3 JSON does.
    return (v) => names.get(v as number) ?? String(v);
  }
  return scalarValue(field.scalar!);
}

function scalarValue(type: ScalarType): Write {
  switch (type) {
    case ScalarType.STRING:
      return (v) => JSON.stringify(v);
    case ScalarType.BOOL:
      return (v) => (v ? "true" : "false");
    case ScalarType.BYTES:
      return (v) => `"${base64Encode(v as Uint8Array)}"`;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (v) => (Number.isFinite(v) ? String(v) : Number.isNaN(v) ? '"NaN"' : (v as number) > 0 ? '"Infinity"' : '"-Infinity"');
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return (v) => `"${String(v)}"`;
    default:
      return (v) => String(v);
  }
}

function scalarZero(type: ScalarType): unknown {
  switch (type) {
    case ScalarType.BOOL:
      return false;
    case ScalarType.BYTES:
      return new Uint8Array(0);
    case ScalarType.STRING:
      return "";
    default:
      return 0;
  }
}
