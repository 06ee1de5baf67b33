import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError, usageError } from "./output.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * A subcommand's flags (always with --json), strictly: an unknown flag, a missing value or a stray argument is a
 * usage error (exit 2, the usage printed), never a default silently taken.
 */
export function parseCommand<O extends Options>(args: string[], options: O, usage: string, positionals: { min: number; max: number } = { min: 0, max: 0 }) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: "boolean" } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageError(err instanceof Error ? err.message : String(err), usage);
  }
  const n = parsed.positionals.length;
  if (n < positionals.min) throw usageError("missing argument", usage);
  if (n > positionals.max) throw usageError(`unexpected argument ${parsed.positionals[positionals.max]}`, usage);
  return { values: parsed.values as { [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string } & { json?: boolean }, positionals: parsed.positionals };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id argument: a UUID, or a usage error naming the flag (an id that is well-formed but unknown is not_found). */
export function uuidArg(value: string | undefined, name: string, usage: string): string {
  if (value === undefined) throw usageError(`${name} is required`, usage);
  if (!UUID.test(value)) throw usageError(`${name} must be a UUID, got "${value}"`, usage);
  return value.toLowerCase();
}

export function optionalUuid(value: string | undefined, name: string, usage: string): string | undefined {
  return value === undefined ? undefined : uuidArg(value, name, usage);
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "10m", "2h", "7d" in milliseconds. */
export function durationArg(value: string, name: string, usage: string): number {
  const m = /^(\d+)([smhd])$/.exec(value.trim());
  if (!m) throw usageError(`${name} must be a duration like 90s, 10m, 2h or 7d, got "${value}"`, usage);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** A point in time: an ISO 8601 date or time, or a duration meaning that long ago ("24h"). */
export function sinceArg(value: string, name: string, usage: string): Date {
  if (/^\d+[smhd]$/.test(value.trim())) return new Date(Date.now() - durationArg(value, name, usage));
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw usageError(`${name} must be an ISO time (2026-01-31T12:00:00Z) or a duration ago (24h), got "${value}"`, usage);
  return new Date(t);
}

export const notFoundError = (what: string, id: string) => new CliError(`no ${what} ${id}`, "not_found");
