import { ScalarType, type DescMessage, type Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import type { Violation } from "./validation.js";

/**
 * U+0000 (Postgres text and jsonb refuse it, so it would surface as a 500) and unpaired UTF-16 surrogates
 * (Node would store them as U+FFFD, silently changing the text, and jsonb refuses their \u escapes). In the
 * `u` mode a well-formed pair is one code point, so \p{Cs} matches only a lone half.
 */
const UNSAFE_TEXT = /\u0000|\p{Cs}/u;

export function isUnsafeText(s: string): boolean {
  return UNSAFE_TEXT.test(s);
}

const MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";
/** Map keys are echoed in field paths; a very long one is cut so an error never echoes much input. */
const MAX_KEY_IN_PATH = 64;

const JSON_WRAPPERS = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

const keyInPath = (key: string) => (key.length > MAX_KEY_IN_PATH ? `${key.slice(0, MAX_KEY_IN_PATH)}…` : key);

/**
 * Every string anywhere in a request, whatever its field or depth: scalar and repeated strings, nested
 * messages, oneofs, map keys and values, and the JSON inside google.protobuf.Struct / Value / ListValue
 * (which are ordinary messages to reflection). Checked once here for every RPC instead of per route.
 * google.protobuf.Any holds packed bytes that no handler unpacks, so there is no text in it to check.
 * Paths use JSON names; Struct keys read as `metadata.key`, lists as `[i]`.
 */
export function unsafeTextViolations(schema: DescMessage, message: Message): Violation[] {
  const out: Violation[] = [];
  walk(reflect(schema, message), "", out);
  return out;
}

function walk(r: ReflectMessage, path: string, out: Violation[]): void {
  const typeName = r.desc.typeName;
  for (const f of r.fields) {
    if (!r.isSet(f)) continue;
    // Struct, Value and ListValue are plain JSON to the caller: their own field names are not in the path.
    const here = JSON_WRAPPERS.has(typeName) ? path : join(path, f.jsonName);
    switch (f.fieldKind) {
      case "scalar":
        if (f.scalar === ScalarType.STRING) check(r.get(f) as string, here, out);
        break;
      case "message":
        walk(r.get(f), here, out);
        break;
      case "list": {
        const list = r.get(f);
        let i = 0;
        for (const item of list) {
          const at = `${here}[${i++}]`;
          if (f.listKind === "scalar" && typeof item === "string") check(item, at, out);
          else if (f.listKind === "message") walk(item as ReflectMessage, at, out);
        }
        break;
      }
      case "map":
        for (const [key, value] of r.get(f)) {
          const k = String(key);
          if (typeof key === "string" && isUnsafeText(key)) {
            out.push({ field: here, message: `has a key that ${MESSAGE}` });
            continue;
          }
          const at = typeName === "google.protobuf.Struct" ? join(here, keyInPath(k)) : `${here}[${keyInPath(k)}]`;
          if (f.mapKind === "scalar" && typeof value === "string") check(value, at, out);
          else if (f.mapKind === "message") walk(value as ReflectMessage, at, out);
        }
        break;
      case "enum":
        break;
    }
  }
}

const join = (path: string, name: string) => (path === "" ? name : `${path}.${name}`);

function check(value: string, path: string, out: Violation[]): void {
  if (isUnsafeText(value)) out.push({ field: path || "(value)", message: MESSAGE });
}
