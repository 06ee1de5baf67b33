import {
  create,
  isFieldSet,
  ScalarType,
  toJson,
  toJsonString,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { presentFieldJson, presentJson, protoJson } from "../../src/gateway/present.js";
import { fieldRules } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";

/**
 * The gateway writes REST JSON in one pass from a handler's result, message or init shape (present.ts).
 * The oracle here is how it was written before: protobuf-es's own `toJson(create(...))` with every implicit
 * field emitted, then the presence rules applied to that JSON object. Random results of every response type
 * of every registered service (and every message type nested in them) must read the same both ways.
 */
const SEED = Number(process.env.PRESENT_SEED ?? Date.now() % 1_000_000);
const RUNS = Number(process.env.PRESENT_RUNS ?? 25);

describe("REST presentation", () => {
  const schemas = reachableMessages(apiServices.flatMap((s) => s.methods.map((m) => m.output)));

  it(`matches toJson plus the presence rules on random results of every response type (seed ${SEED})`, () => {
    expect(schemas.length).toBeGreaterThan(100);
    const random = mulberry32(SEED);
    const mismatches: string[] = [];
    for (const schema of schemas) {
      for (let run = 0; run < RUNS; run++) {
        const init = randomInit(schema, random, 0);
        const message = create(schema, init as never);
        const expected = oracle(schema, message);
        for (const [form, value] of [["init", init], ["message", message]] as const) {
          const actual = JSON.parse(presentJson(schema, value)) as JsonValue;
          if (!deepEqual(actual, expected)) mismatches.push(`${schema.typeName} (${form}, run ${run}): ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`);
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it(`writes proto3 JSON byte for byte as toJsonString does, from the message or its init shape (seed ${SEED})`, () => {
    const random = mulberry32(SEED + 1);
    const mismatches: string[] = [];
    for (const schema of schemas) {
      for (let run = 0; run < RUNS; run++) {
        const init = randomInit(schema, random, 0);
        const message = create(schema, init as never);
        const expected = toJsonString(schema, message);
        for (const [form, value] of [["init", init], ["message", message]] as const) {
          const actual = protoJson(schema, value);
          if (actual !== expected) mismatches.push(`${schema.typeName} (${form}, run ${run}): ${actual} != ${expected}`);
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it("writes Timestamps with 0, 3, 6 or 9 fraction digits, as proto3 JSON does", () => {
    const schema = schemas.find((s) => s.fields.some((f) => f.fieldKind === "message" && f.message.typeName === "google.protobuf.Timestamp"))!;
    const field = schema.fields.find((f) => f.fieldKind === "message" && f.message.typeName === "google.protobuf.Timestamp")!;
    const cases: [number, string][] = [
      [0, "2026-11-23T14:08:12Z"],
      [120_000_000, "2026-11-23T14:08:12.120Z"],
      [120_300_000, "2026-11-23T14:08:12.120300Z"],
      [120_300_007, "2026-11-23T14:08:12.120300007Z"],
    ];
    for (const [nanos, text] of cases) {
      expect(presentFieldJson(field, { [field.localName]: { seconds: 1795442892n, nanos } })).toBe(JSON.stringify(text));
    }
    expect(() => presentFieldJson(field, { [field.localName]: { seconds: 253402300800n, nanos: 0 } })).toThrow(/out of range/);
  });

  it("leaves out unset text and unset messages, writes null for nullable ones and zeros for the rest", () => {
    const nullable = schemas.flatMap((s) => s.fields.filter((f) => f.fieldKind === "message" && fieldRules(f)?.nullable).map((f) => [s, f] as const))[0];
    expect(nullable).toBeDefined();
    const [schema, field] = nullable;
    const json = JSON.parse(presentJson(schema, {})) as JsonObject;
    expect(json[field.jsonName]).toBeNull();
    for (const f of schema.fields) {
      if (f.fieldKind === "scalar" && f.scalar === ScalarType.STRING) expect(json).not.toHaveProperty(f.jsonName);
      if (f.fieldKind === "list") expect(json[f.jsonName]).toEqual([]);
      if (f.fieldKind === "scalar" && f.scalar === ScalarType.BOOL && !f.oneof && f.presence === 2) expect(json[f.jsonName]).toBe(false);
    }
  });

  it("marks only message fields nullable: the presentation writes null for an unset message, never for a scalar (use a wrapper)", () => {
    const misplaced = schemas.flatMap((s) => s.fields.filter((f) => f.fieldKind !== "message" && fieldRules(f)?.nullable).map((f) => `${s.typeName}.${f.name}`));
    expect(misplaced).toEqual([]);
  });
});

// ---- the oracle: the two-pass presentation the gateway used before ----

function oracle(schema: DescMessage, message: Message): JsonValue {
  return shape(schema, message, toJson(schema, message, { alwaysEmitImplicit: true }));
}

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
    if (field.fieldKind === "scalar") {
      if (field.scalar === ScalarType.STRING && !isFieldSet(message, field)) delete obj[key];
    } else if (field.fieldKind === "message") {
      if (isFieldSet(message, field)) obj[key] = shape(field.message, valueOf(message, field) as Message, obj[key]);
      else if (fieldRules(field)?.nullable) obj[key] = null;
      else delete obj[key];
    } else if (field.fieldKind === "list") {
      const items = obj[key];
      if (field.listKind === "message" && Array.isArray(items)) {
        const list = valueOf(message, field) as Message[];
        for (let i = 0; i < list.length; i++) items[i] = shape(field.message, list[i], items[i]);
      }
      if (items === undefined) obj[key] = [];
    } else if (field.fieldKind === "map") {
      const values = obj[key];
      if (field.mapKind === "message" && values !== null && typeof values === "object" && !Array.isArray(values)) {
        const map = valueOf(message, field) as Record<string, Message>;
        for (const mk of Object.keys(map)) if (mk in values) values[mk] = shape(field.message, map[mk], values[mk]);
      }
    }
  }
  return obj;
}

// ---- random results ----

function reachableMessages(roots: DescMessage[]): DescMessage[] {
  const seen = new Map<string, DescMessage>();
  const visit = (d: DescMessage) => {
    if (seen.has(d.typeName)) return;
    seen.set(d.typeName, d);
    for (const f of d.fields) if (f.message) visit(f.message);
  };
  roots.forEach(visit);
  return [...seen.values()].filter((d) => !hasCustomJsonRepresentation(d));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An init shape: each field absent, at its zero value or at a random value (strings with quotes and a surrogate pair). */
function randomInit(desc: DescMessage, random: () => number, depth: number): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const f of desc.fields) {
    const r = random();
    if (r < 0.25) continue;
    const value = r < 0.4 ? zeroOf(f) : randomField(f, random, depth);
    if (value === undefined) continue;
    if (f.oneof) {
      if (init[f.oneof.localName] === undefined && random() < 0.6) init[f.oneof.localName] = { case: f.localName, value };
    } else init[f.localName] = value;
  }
  return init;
}

function zeroOf(f: DescField): unknown {
  if (f.fieldKind === "list") return [];
  if (f.fieldKind === "map") return {};
  if (f.fieldKind === "enum") return f.enum.values[0].number;
  if (f.fieldKind === "message") return undefined;
  return f.scalar === ScalarType.STRING ? "" : f.scalar === ScalarType.BOOL ? false : f.scalar === ScalarType.BYTES ? new Uint8Array(0) : isLong(f.scalar) ? 0n : 0;
}

function randomField(f: DescField, random: () => number, depth: number): unknown {
  if (f.fieldKind === "list") {
    const n = Math.floor(random() * 3);
    return Array.from({ length: n }, () => randomItem(f, random, depth)).filter((v) => v !== undefined);
  }
  if (f.fieldKind === "map") {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < Math.floor(random() * 3); i++) {
      const v = randomItem(f, random, depth);
      if (v !== undefined) out[`k${i}"\\`] = v;
    }
    return out;
  }
  return randomItem(f, random, depth);
}

function randomItem(f: DescField, random: () => number, depth: number): unknown {
  const message = f.message;
  if (message) {
    if (depth > 3) return undefined;
    switch (message.typeName) {
      case "google.protobuf.Timestamp":
        return { seconds: BigInt(Math.floor(random() * 2e9)), nanos: [0, 5e8, 123456000, 123456789][Math.floor(random() * 4)] };
      case "google.protobuf.Struct":
        return { a: "x\"y", n: Math.floor(random() * 100), nested: { ok: random() < 0.5, list: [1, "two", null] } };
      case "google.protobuf.Value":
        return { kind: { case: "stringValue", value: "v" } };
      case "google.protobuf.ListValue":
        return { values: [{ kind: { case: "numberValue", value: 3 } }] };
      case "google.protobuf.Duration":
        return { seconds: 90n, nanos: 5e8 };
      default:
        if (message.typeName.startsWith("google.protobuf.") && message.fields[0]?.name === "value") {
          const inner = randomItem(message.fields[0], random, depth);
          // Singular wrapper fields outside a oneof hold the bare scalar; elsewhere the wrapper message.
          return f.fieldKind === "message" && !f.oneof ? inner : { value: inner };
        }
        if (message.typeName.startsWith("google.protobuf.")) return undefined;
        return randomInit(message, random, depth + 1);
    }
  }
  if (f.enum) {
    const values = f.enum.values;
    return values[Math.floor(random() * values.length)].number;
  }
  const scalar = f.scalar!;
  switch (scalar) {
    case ScalarType.STRING:
      return ["", "plain", 'quote " and \\ back', "emoji \u{1f600}", "line\nbreak"][Math.floor(random() * 5)];
    case ScalarType.BOOL:
      return random() < 0.5;
    case ScalarType.BYTES:
      return Uint8Array.from({ length: Math.floor(random() * 5) }, () => Math.floor(random() * 256));
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return [0, -0, 1.5, -2, 1e21, NaN, Infinity][Math.floor(random() * 7)];
    default:
      if (isLong(scalar)) return BigInt(Math.floor(random() * 1e6)) * (scalar === ScalarType.UINT64 || scalar === ScalarType.FIXED64 ? 1n : -1n);
      return Math.floor(random() * 1000) * (scalar === ScalarType.UINT32 || scalar === ScalarType.FIXED32 ? 1 : -1);
  }
}

function isLong(s: ScalarType): boolean {
  return [ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64].includes(s);
}

function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => k in b && deepEqual((a as JsonObject)[k]!, (b as JsonObject)[k]!));
}
