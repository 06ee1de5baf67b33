import { DomainError } from "../errors.js";

/**
 * A failure the CLI reports itself: `code` is the stable snake_case identifier scripts branch on (the same
 * words as the API's error codes where one exists), `exitCode` 2 for a command line that cannot run (bad flag,
 * missing argument: the usage is printed), 1 for everything else.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode = 1,
    /** Printed after the message (human output only) when the command line itself was wrong. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string, usage: string) => new CliError(message, "bad_usage", 2, usage);

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

const cell = (value: unknown): string => {
  if (value === null || value === undefined || value === "") return "-";
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.length ? value.map(cell).join(",") : "-";
  return String(value);
};

/** Rows as aligned columns with a header line; "(none)" for an empty list, so an empty answer is visible. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join("\n");
}

/** "name   value" lines for one record (show commands). */
export function formatFields(fields: readonly [string, unknown][]): string {
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${name.padEnd(width)}  ${cell(value)}`).join("\n");
}

const toJson = (data: unknown) => JSON.stringify(data, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));

/** The result of a command: `data` as one JSON document with --json, else the human text. */
export function printResult(json: boolean, data: unknown, human: () => string): void {
  console.log(json ? toJson(data) : human());
}

/**
 * An error as the operator sees it: one line on stderr ("sigil: ..."), then the usage for a bad command line;
 * with --json also {"error","code"} on stdout so a script reading stdout gets a document either way.
 * Returns the process exit code.
 */
export function reportError(err: unknown, json: boolean): number {
  const { message, code, exitCode, usage } =
    err instanceof CliError
      ? err
      : err instanceof DomainError
        ? { message: err.message, code: err.code, exitCode: 1, usage: undefined }
        : { message: err instanceof Error ? err.message : String(err), code: "internal", exitCode: 1, usage: undefined };
  console.error(`sigil: ${message}`);
  if (usage && !json) console.error(`\n${usage}`);
  if (json) console.log(toJson({ error: message, code }));
  return exitCode;
}
