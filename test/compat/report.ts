import { mkdirSync, writeFileSync } from "node:fs";
import type { Undeclared, Violation } from "./conform.js";

/** What the suite found in one operation's answer: differences from the model and properties it lacks. */
export interface CompatFinding {
  operation: string;
  responseType: string;
  violations: Violation[];
  undeclared: Undeclared[];
}

/** Where each scenario file's report goes (ignored by git): one JSON file per file of scenarios. */
const compatReportDir = new URL("../../coverage/compat/", import.meta.url);

/**
 * Writes the report of one scenario file: every operation checked, with what differed and every property
 * the client's model does not declare (allowed or not), so an extension is always visible, never silent.
 */
export function writeCompatReport(title: string, findings: CompatFinding[]): void {
  mkdirSync(compatReportDir, { recursive: true });
  const name = title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80);
  writeFileSync(new URL(`${name}.json`, compatReportDir), `${JSON.stringify({ title, operations: findings }, null, 2)}\n`);
}
