import { describe, expect, it } from "vitest";
import { listMigrations } from "../../src/db/migrate.js";

/**
 * During a rollout the previous release runs on the new schema (docs/runbook.md, Upgrades), so a migration
 * may only add: tables, columns the old code does not have to write, indexes, constraints old rows already
 * meet. A statement that takes something away from the old code (a column or table dropped or renamed, a type
 * changed, NOT NULL on a column the old code may leave empty) must say why it is safe in a `-- contract:` line
 * of its own (e.g. the previous release no longer reads or writes it). The migrations before this rule were
 * written for single-process deploys and are not held to it.
 */
const FIRST_HELD = "043";
const TAKES_AWAY: [RegExp, string][] = [
  [/\bDROP\s+(COLUMN|TABLE)\b/i, "drops a column or table"],
  [/\bRENAME\b/i, "renames"],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, "changes a column's type"],
  [/\bSET\s+NOT\s+NULL\b/i, "makes a column NOT NULL"],
];

/** The SQL without comments, so that a comment mentioning a statement does not count as one. */
const code = (sql: string) => sql.replace(/--.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");

describe("migrations during a rollout", () => {
  it("only add, unless a -- contract: line says why taking away is safe", () => {
    const offending = listMigrations()
      .filter((m) => m.version >= FIRST_HELD && !/^--\s*contract:/m.test(m.sql))
      .flatMap((m) => TAKES_AWAY.filter(([shape]) => shape.test(code(m.sql))).map(([, what]) => `${m.version} ${what}`));
    expect(offending).toEqual([]);
  });

  it("notices a migration that takes something away", () => {
    const sql = "ALTER TABLE users ADD COLUMN nickname text; -- fine\nALTER TABLE users DROP COLUMN alias;";
    expect(TAKES_AWAY.some(([shape]) => shape.test(code(sql)))).toBe(true);
    expect(TAKES_AWAY.some(([shape]) => shape.test(code("-- DROP COLUMN alias is for later\nSELECT 1;")))).toBe(false);
  });
});
