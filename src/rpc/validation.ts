import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { fieldRules } from "./method-options.js";

export interface Violation {
  field: string;
  message: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is proven by verification.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const patternCache = new Map<string, RegExp>();

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

function checkString(path: string, value: string, f: DescField, out: Violation[]) {
  const r = fieldRules(f);
  if (!r) return;
  const length = [...value].length;
  if (r.required && value === "") return void out.push({ field: path, message: "is required" });
  if (value === "") return;
  if (r.uuid && !UUID.test(value)) out.push({ field: path, message: "must be a 36-character lowercase UUID" });
  if (r.minLen && length < r.minLen) out.push({ field: path, message: `must be at least ${r.minLen} characters` });
  if (r.maxLen && length > r.maxLen) out.push({ field: path, message: `must be at most ${r.maxLen} characters` });
  if (r.allowed.length && !r.allowed.includes(value)) out.push({ field: path, message: `must be one of: ${r.allowed.join(", ")}` });
  if (r.email && !EMAIL.test(value)) out.push({ field: path, message: "must be an email address" });
  if (r.url && !isHttpUrl(value)) out.push({ field: path, message: "must be an absolute http(s) URL" });
  if (r.pattern) {
    let re = patternCache.get(r.pattern);
    if (!re) patternCache.set(r.pattern, (re = new RegExp(r.pattern)));
    if (!re.test(value)) out.push({ field: path, message: `must match ${r.pattern}` });
  }
}

/**
 * Checks a request against the (sigil.options.v0.field) rules declared in the proto, recursively.
 * Field paths use the JSON names a REST caller sent (e.g. "wallets[0].chain").
 */
export function validateMessage(schema: DescMessage, message: Record<string, unknown>, prefix = ""): Violation[] {
  const out: Violation[] = [];
  for (const f of schema.fields) {
    const path = prefix + f.jsonName;
    const value = message[f.localName];
    const rules = fieldRules(f);
    if (f.fieldKind === "scalar" && typeof value === "string") checkString(path, value, f, out);
    else if (f.fieldKind === "list") {
      const items = value as unknown[];
      if (rules?.maxItems && items.length > rules.maxItems) out.push({ field: path, message: `must have at most ${rules.maxItems} items` });
      if (rules?.required && items.length === 0) out.push({ field: path, message: "is required" });
      items.forEach((item, i) => {
        if (f.listKind === "scalar" && typeof item === "string") checkString(`${path}[${i}]`, item, f, out);
        if (f.listKind === "message") out.push(...validateMessage(f.message, item as Record<string, unknown>, `${path}[${i}].`));
      });
    } else if (f.fieldKind === "message") {
      if (rules?.required && value === undefined) out.push({ field: path, message: "is required" });
      if (value !== undefined && !f.message.typeName.startsWith("google.protobuf."))
        out.push(...validateMessage(f.message, value as Record<string, unknown>, `${path}.`));
    }
  }
  return out;
}
