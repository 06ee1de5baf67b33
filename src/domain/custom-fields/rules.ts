import { badRequest, unprocessable } from "../../errors.js";
import type { CustomFieldRecord, FieldSource } from "../../db/repositories/custom-fields.js";

/**
 * The user's profile fields a `standard` custom field may name (API name -> users column). Custom fields
 * (type `custom`) keep their value in the user's metadata under the field's name instead.
 */
export const STANDARD_FIELDS: Record<string, string> = {
  email: "u.email",
  phoneNumber: "u.phone_number",
  alias: "u.alias",
  firstName: "u.first_name",
  lastName: "u.last_name",
  username: "u.username",
  jobTitle: "u.job_title",
  country: "u.country",
  team: "u.team",
  tShirtSize: "u.t_shirt_size",
  externalUserId: "u.external_user_id",
  policiesConsent: "u.policies_consent::text",
};

/** Values longer than this are rejected before any regex runs (bounds the work a pattern can do). */
export const MAX_CHECKED_VALUE_LENGTH = 1024;

/** The profile a field's value is read from: the user's profile fields plus its metadata. */
export type UserFieldState = Record<string, unknown> & { metadata: Record<string, unknown> };

export function sourceOf(field: Pick<CustomFieldRecord, "type" | "name">): FieldSource {
  return field.type === "standard" ? { column: STANDARD_FIELDS[field.name]! } : { metadataKey: field.name };
}

export function valueOf(field: Pick<CustomFieldRecord, "type" | "name">, state: UserFieldState): unknown {
  return field.type === "standard" ? state[field.name] : state.metadata?.[field.name];
}

/** Absent, null, blank, or an unticked checkbox. */
export function isMissing(field: Pick<CustomFieldRecord, "validationType">, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === "string" && v.trim() === "") return true;
  if (field.validationType === "checkbox") return !(v === true || v === "true");
  return false;
}

/** How unique values compare: trimmed of spaces and lower-cased (as lower(btrim(...)) in SQL). */
export function uniqueKey(v: unknown): string {
  const text = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  return text.replace(/^ +| +$/g, "").toLowerCase();
}

/** Fields that are required and enabled but have no value for this user (the User's missingFields). */
export function missingFields(fields: readonly CustomFieldRecord[], state: UserFieldState): CustomFieldRecord[] {
  return fields.filter((f) => f.enabled && f.required && isMissing(f, valueOf(f, state)));
}

const compiled = new Map<string, RegExp>();
function anchored(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^(?:${pattern})$`);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * Checks a regex when a field is saved: it must compile, and must not contain the shapes that backtrack
 * catastrophically in a backtracking engine: a quantified group that itself contains a quantifier
 * (`(a+)+`, `(\w*)*`, `(a|aa){2,}`-like nesting) or a backreference. Heuristic, with the length cap in the
 * proto (256) and the value cap (MAX_CHECKED_VALUE_LENGTH) as the remaining bounds.
 */
export function checkRegex(pattern: string): void {
  try {
    anchored(pattern);
  } catch (err) {
    throw badRequest("invalid_regex", `validationRules.regex is not a valid regular expression: ${(err as Error).message}`);
  }
  if (/\\[1-9]|\\k</.test(pattern)) throw badRequest("invalid_regex", "validationRules.regex may not use backreferences");
  // Walk the pattern: for each open group remember whether it holds a quantifier or an alternation.
  const stack: { quantified: boolean; alternation: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") stack.push({ quantified: false, alternation: false });
    else if (c === "|") {
      if (stack.length) stack[stack.length - 1]!.alternation = true;
    } else if (c === ")") {
      const group = stack.pop();
      const next = pattern[i + 1];
      const repeated = next === "*" || next === "+" || (next === "{" && /^\{\d*,\d*\}|^\{\d{2,}\}/.test(pattern.slice(i + 1)));
      if (group && repeated && (group.quantified || group.alternation))
        throw badRequest("invalid_regex", "validationRules.regex has a repeated group containing a quantifier or alternation (catastrophic backtracking)");
      if (stack.length && (group?.quantified || repeated)) stack[stack.length - 1]!.quantified = true;
    } else if ((c === "*" || c === "+" || c === "{") && stack.length) stack[stack.length - 1]!.quantified = true;
  }
}

/** A value's own rules (regex, valid options); throws 422 naming the field. */
export function checkValue(field: CustomFieldRecord, v: unknown): void {
  const text = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  if (field.regex) {
    if (text.length > MAX_CHECKED_VALUE_LENGTH)
      throw unprocessable("custom_field_invalid_format", `${field.name} is longer than ${MAX_CHECKED_VALUE_LENGTH} characters`, { field: field.name });
    if (!anchored(field.regex).test(text))
      throw unprocessable("custom_field_invalid_format", `${field.name} does not match the required format`, { field: field.name });
  }
  if (field.validOptions.length && !field.validOptions.some((o) => o.label === text))
    throw unprocessable("custom_field_invalid_option", `${field.name} must be one of: ${field.validOptions.map((o) => o.label).join(", ")}`, {
      field: field.name,
    });
}

/**
 * Checks a user's new state against the environment's enabled fields and returns the unique values to hold
 * (field id -> key). On create (`before` null) every required field must have a value; on update a required
 * field may not lose its value, and only values that changed are checked against regex and options (a user
 * stored before a rule existed can still be updated otherwise). Missing required fields of an existing user
 * show in missingFields.
 */
export function enforceFields(
  fields: readonly CustomFieldRecord[],
  before: UserFieldState | null,
  after: UserFieldState,
): Map<string, string> {
  const unique = new Map<string, string>();
  for (const f of fields) {
    if (!f.enabled) continue;
    const v = valueOf(f, after);
    const missing = isMissing(f, v);
    if (f.required && missing && (before === null || !isMissing(f, valueOf(f, before))))
      throw unprocessable("custom_field_required", `${f.label || f.name} is required`, { field: f.name });
    if (missing) continue;
    const changed = before === null || JSON.stringify(valueOf(f, before)) !== JSON.stringify(v);
    if (changed) checkValue(f, v);
    if (f.unique) unique.set(f.id, uniqueKey(v));
  }
  return unique;
}
