import type { Database } from "../../src/db/db.js";

/**
 * The statements `work` sends to Postgres from this process (pg-promise's query event), each as its text's
 * first 120 characters, or `prepared <name>` for a prepared statement. Start the app without the outbox
 * dispatcher, whose polling would be counted too.
 */
export async function statementsOf(db: Database, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const options = db.$config.options as { query?: (e: { query: unknown }) => void };
  const before = options.query;
  // A prepared statement arrives as its object: its name says which.
  const text = (q: unknown) => (typeof q === "string" ? q : `prepared ${(q as { name?: string }).name}`);
  options.query = (e) => void seen.push(text(e.query).replace(/\s+/g, " ").slice(0, 120));
  try {
    await work();
  } finally {
    options.query = before;
  }
  return seen;
}
