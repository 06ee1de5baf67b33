import type { SettingsDocument } from "./settings.js";

/** A property of the settings document by its JSON names, e.g. ["security", "mfa", "enabled"]. */
export type SettingsPath = readonly string[];

/**
 * The stored settings with the named properties taken from the update and nothing else: a partial update
 * (security.mfa) never wipes a sibling it did not name (security.externalAuth, jwtDuration, another
 * section). A named property the update leaves out (null in a REST body) is removed, so it reads as its
 * default again. Lists and scalars are replaced whole, never merged item by item.
 */
export function applySettingsUpdate(stored: SettingsDocument, update: SettingsDocument, paths: readonly SettingsPath[]): SettingsDocument {
  const out = structuredClone(stored) as Record<string, unknown>;
  for (const path of paths) {
    const value = valueAt(update, path);
    if (value === undefined) removeAt(out, path);
    else setAt(out, path, structuredClone(value));
  }
  return out as SettingsDocument;
}

function valueAt(doc: unknown, path: SettingsPath): unknown {
  let v = doc;
  for (const key of path) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

function setAt(doc: Record<string, unknown>, path: SettingsPath, value: unknown): void {
  let obj = doc;
  for (const key of path.slice(0, -1)) {
    if (!isObject(obj[key])) obj[key] = {};
    obj = obj[key] as Record<string, unknown>;
  }
  obj[path[path.length - 1]] = value;
}

function removeAt(doc: Record<string, unknown>, path: SettingsPath): void {
  const parent = valueAt(doc, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1]];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
