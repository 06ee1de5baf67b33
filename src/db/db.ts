import pgPromise, { type IBaseProtocol, type IDatabase } from "pg-promise";

/** pg-promise root with the project's conventions: timestamptz as Date, bigint count() as number. */
const pgp = pgPromise({ capSQL: true });
pgp.pg.types.setTypeParser(20, (v: string) => Number(v)); // int8: counts fit in a double here

export type Database = IDatabase<unknown>;
/** A database or an open transaction/task: every repository function accepts either. */
export type Queryable = IBaseProtocol<unknown>;

/**
 * How long a query waits for a pooled connection (a new one or a free one) before failing: a server that is
 * down or black-holed must fail a request in seconds (answered 503 database_unavailable), not hang it.
 */
export const CONNECT_TIMEOUT_MS = 3_000;

export function connectDatabase(url: string, opts: { max?: number } = {}): Database {
  const db = pgp({ connectionString: url, max: opts.max ?? 20, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // pg-pool's end() resolves before its clients' sockets have closed, and pg-promise drops its own pool
  // 'error' listener when the pool ends. A server stopping right then (the embedded Postgres on shutdown)
  // sends a FATAL that pg-pool re-emits on the pool: with no listener left, that is an uncaught exception
  // that crashes the process. This listener outlives pg-promise's; errors of live queries still reach
  // their callers.
  db.$pool.on("error", () => {});
  return db;
}

export async function closeDatabase(db: Database): Promise<void> {
  await db.$pool.end();
}

export { pgp };

/** Rows read through json_agg carry timestamps as ISO strings; plain rows carry Dates. Both become Dates. */
export function toDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  return v instanceof Date ? v : new Date(v as string);
}
