import type { ModelSchema } from "./models.js";

/** One way a JSON value differs from what the client's model declares, with the JSON path where it does. */
export interface Violation {
  path: string;
  problem: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A property an object answer carries that its model does not declare (the client drops it). */
export interface Undeclared {
  path: string;
  model: string;
  property: string;
}

/**
 * Checks a JSON value against a type expression of the client's models: every property the model marks
 * required is present (null only where it says `| null`), has the declared type, dates are ISO 8601
 * strings, enum values are among those declared, and an array is a bare array. Every field of most models
 * is optional, so presence alone proves nothing: an object that carries properties must carry at least one
 * its model declares (a client reading it would otherwise find nothing it knows; an empty object is a
 * section with nothing set). Properties the model does not
 * declare are collected into `undeclared` (the runner reports them and allows only the decided ones).
 */
export function conform(models: Map<string, ModelSchema>, value: unknown, type: string, path = "$", undeclared: Undeclared[] = []): Violation[] {
  type = type.trim();
  const alternatives = splitTop(type, "|");
  if (alternatives.length > 1) {
    const nullable = alternatives.includes("null");
    const rest = alternatives.filter((a) => a !== "null");
    if (value === null) return nullable ? [] : [{ path, problem: `null where ${type} is declared` }];
    let best: { violations: Violation[]; undeclared: Undeclared[] } | undefined;
    for (const alt of rest) {
      const found: Undeclared[] = [];
      const v = conform(models, value, alt, path, found);
      if (v.length === 0) {
        undeclared.push(...found);
        return [];
      }
      if (!best || v.length < best.violations.length) best = { violations: v, undeclared: found };
    }
    undeclared.push(...(best?.undeclared ?? []));
    return best?.violations ?? [];
  }
  if (type === "any" || type === "object" || type === "unknown") {
    if (type === "object" && (value === null || typeof value !== "object")) return [{ path, problem: `expected an object, got ${show(value)}` }];
    return [];
  }
  if (value === null) return [{ path, problem: `null where ${type} is declared` }];
  if (value === undefined) return [{ path, problem: `missing (${type})` }];
  if (type === "string") return typeof value === "string" ? [] : [{ path, problem: `expected a string, got ${show(value)}` }];
  if (type === "number") return typeof value === "number" ? [] : [{ path, problem: `expected a number, got ${show(value)}` }];
  if (type === "boolean") return typeof value === "boolean" ? [] : [{ path, problem: `expected a boolean, got ${show(value)}` }];
  if (type === "Date") {
    return typeof value === "string" && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))
      ? []
      : [{ path, problem: `expected an ISO 8601 date string, got ${show(value)}` }];
  }
  const array = type.match(/^Array<(.+)>$/s);
  if (array) {
    if (!Array.isArray(value)) return [{ path, problem: `expected an array, got ${show(value)}` }];
    return value.flatMap((item, i) => conform(models, item, array[1], `${path}[${i}]`, undeclared));
  }
  const record = type.match(/^\{ \[key: string\]: (.+); \}$/s);
  if (record) {
    if (typeof value !== "object" || Array.isArray(value)) return [{ path, problem: `expected an object map, got ${show(value)}` }];
    return Object.entries(value as object).flatMap(([k, v]) => conform(models, v, record[1], `${path}.${k}`, undeclared));
  }
  const model = models.get(type);
  if (!model) return [{ path, problem: `the suite cannot read the type ${type}` }];
  if (model.kind === "alias") return conform(models, value, model.type, path, undeclared);
  if (model.kind === "enum") {
    return typeof value === "string" && model.values.includes(value)
      ? []
      : [{ path, problem: `${show(value)} is not a value of ${type} (${model.values.join(", ")})` }];
  }
  if (typeof value !== "object" || Array.isArray(value)) return [{ path, problem: `expected a ${type} object, got ${show(value)}` }];
  const obj = value as Record<string, unknown>;
  const violations: Violation[] = [];
  const declared = Object.keys(model.properties);
  // An empty object says "nothing set" (a section never configured) and hides nothing from the client.
  if (declared.length > 0 && Object.keys(obj).length > 0 && !declared.some((name) => obj[name] !== undefined))
    violations.push({ path, problem: `carries none of the properties ${type} declares (${declared.join(", ")})` });
  for (const [name, prop] of Object.entries(model.properties)) {
    const v = obj[name];
    if (v === undefined) {
      if (!prop.optional) violations.push({ path: `${path}.${name}`, problem: `required by ${type} but missing` });
      continue;
    }
    violations.push(...conform(models, v, prop.type, `${path}.${name}`, undeclared));
  }
  for (const name of Object.keys(obj)) if (!(name in model.properties)) undeclared.push({ path: `${path}.${name}`, model: type, property: name });
  return violations;
}

/** Splits a type expression at a top-level separator (outside <>, {} and ()). */
function splitTop(type: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (c === "<" || c === "{" || c === "(") depth++;
    else if (c === ">" || c === "}" || c === ")") depth--;
    else if (c === sep && depth === 0) {
      parts.push(type.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(type.slice(start).trim());
  return parts;
}

function show(value: unknown): string {
  const s = JSON.stringify(value);
  return s === undefined ? String(value) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
