import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, type ListValue } from "@bufbuild/protobuf/wkt";
import type { FieldRules } from "../gen/sigil/options/v0/options_pb.js";
import { emailProblem } from "../domain/verifications/email.js";
import { badRequest, type DomainError } from "../errors.js";
import { fieldRules } from "./method-options.js";

export interface Violation {
  field: string;
  message: string;
}

/** The one 400 every rule violation answers: `validation_error`, each broken field named in the payload. */
export function validationError(violations: readonly Violation[]): DomainError {
  const summary = violations.map((v) => `${v.field} ${v.message}`).join("; ");
  return badRequest("validation_error", `invalid request: ${summary}`, { errors: violations });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const patternCache = new Map<string, RegExp>();

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * `item`: the string is an item of a list. An empty scalar field is a field not set (proto3), so its rules
 * are skipped; an empty item is a value the caller sent, held to every rule (a "" in a list of UUIDs must
 * not reach Postgres as a uuid).
 */
function checkString(path: string, value: string, f: DescField, out: Violation[], item = false) {
  const r = fieldRules(f);
  if (!r) return;
  const length = [...value].length;
  if (value === "" && !item) {
    if (r.required) return void out.push({ field: path, message: "is required" });
    // An optional field sent empty is a value (e.g. "clear the label"), except where only named values are
    // allowed: there an empty one would reach the database as a value no CHECK accepts.
    if (r.allowed.length && f.presence === FeatureSet_FieldPresence.EXPLICIT) out.push({ field: path, message: `must be one of: ${r.allowed.join(", ")}` });
    return;
  }
  if (r.uuid && !UUID.test(value)) out.push({ field: path, message: "must be a 36-character lowercase UUID" });
  if (r.minLen && length < r.minLen) out.push({ field: path, message: `must be at least ${r.minLen} characters` });
  if (r.maxLen && length > r.maxLen) out.push({ field: path, message: `must be at most ${r.maxLen} characters` });
  if (r.allowed.length && !r.allowed.includes(value)) out.push({ field: path, message: `must be one of: ${r.allowed.join(", ")}` });
  // The domain's one e-mail rule (a plain address, no quoted local part): deliverability is proven by verification.
  if (r.email) {
    const problem = emailProblem(value);
    if (problem) out.push({ field: path, message: problem });
  }
  if (r.url && !isHttpUrl(value)) out.push({ field: path, message: "must be an absolute http(s) URL" });
  if (r.pattern) {
    let re = patternCache.get(r.pattern);
    if (!re) patternCache.set(r.pattern, (re = new RegExp(r.pattern)));
    if (!re.test(value)) out.push({ field: path, message: `must match ${r.pattern}` });
  }
}

/**
 * The rules of one string field alone: for what an interceptor must read before the whole request is
 * checked (the environment a session is verified against).
 */
export function validateStringField(f: DescField, value: string): Violation[] {
  const out: Violation[] = [];
  checkString(f.jsonName, value, f, out);
  return out;
}

/**
 * A list with presence (google.protobuf.ListValue): counted like a repeated field, and when its items are
 * declared strings, each is checked with the field's string rules.
 */
function checkListValue(path: string, list: ListValue, f: DescField, rules: FieldRules, out: Violation[]) {
  const items = list.values;
  if (rules.minItems && items.length < rules.minItems) out.push({ field: path, message: `must have at least ${rules.minItems} item${rules.minItems === 1 ? "" : "s"}` });
  if (rules.maxItems && items.length > rules.maxItems) out.push({ field: path, message: `must have at most ${rules.maxItems} items` });
  if (!rules.stringItems) return;
  items.forEach((item, i) => {
    if (item.kind.case === "stringValue") checkString(`${path}[${i}]`, item.kind.value, f, out, true);
    else out.push({ field: `${path}[${i}]`, message: "must be a string" });
  });
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
        if (f.listKind === "scalar" && typeof item === "string") checkString(`${path}[${i}]`, item, f, out, true);
        if (f.listKind === "message") out.push(...validateMessage(f.message, item as Record<string, unknown>, `${path}[${i}].`));
      });
    } else if (f.fieldKind === "message") {
      if (rules?.required && value === undefined) out.push({ field: path, message: "is required" });
      if (value !== undefined && rules && f.message.typeName === "google.protobuf.ListValue")
        checkListValue(path, value as ListValue, f, rules, out);
      else if (value !== undefined && !f.message.typeName.startsWith("google.protobuf."))
        out.push(...validateMessage(f.message, value as Record<string, unknown>, `${path}.`));
    }
  }
  return out;
}
