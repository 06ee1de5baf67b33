import type { ConnectionLike } from "@temporalio/client";
import { SEARCH_ATTRIBUTES } from "../workflows/search-attributes.js";

/**
 * Registration of the custom search attributes Sigil's workflows set (src/workflows/search-attributes.ts),
 * with which an operator filters flows in the Temporal UI (`SigilEnvironmentId = "..." AND SigilOperation =
 * "refresh"`). A namespace must know them before a workflow sets them: the embedded dev server and CI's
 * start them with `--search-attribute` (devServerSearchAttributeFlags), the test setup and an existing
 * cluster through registerSearchAttributes (the operator API; `temporal operator search-attribute create`
 * does the same by hand).
 */

/** `temporal server start-dev` arguments registering every attribute. */
export function devServerSearchAttributeFlags(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).flatMap((a) => ["--search-attribute", `${a.name}=Keyword`]);
}

/** Registers the attributes a namespace lacks (idempotent: existing ones are left as they are). */
export async function registerSearchAttributes(connection: Pick<ConnectionLike, "operatorService">, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys({ ...existing.customAttributes, ...existing.systemAttributes }));
  const missing = Object.values(SEARCH_ATTRIBUTES).filter((a) => !known.has(a.name));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      // IndexedValueType 2 = KEYWORD (temporal.api.enums.v1.IndexedValueType).
      searchAttributes: Object.fromEntries(missing.map((a) => [a.name, 2])),
    });
  } catch (err) {
    // Two processes registering at once: the loser is told they exist already, which is what it wanted.
    if (!/already exists/i.test((err as Error).message)) throw err;
  }
}

/**
 * The search attributes a start carries: the environment always (every workflow type carries it, so that an
 * operator filtering by environment finds all of its flows; test/temporal/workflow-visibility.test.ts), the
 * user when the flow is one user's.
 */
export function startSearchAttributes(environmentId: string, userId?: string | null) {
  return [
    { key: SEARCH_ATTRIBUTES.environmentId, value: environmentId },
    ...(userId ? [{ key: SEARCH_ATTRIBUTES.userId, value: userId }] : []),
  ];
}
