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

/** The text of every prepared statement by name (one text per name). */
const preparedTexts = new Map<string, string>();

/**
 * A statement that Postgres parses and plans once per pooled connection (a named prepared statement) rather
 * than on every call, with its values sent as parameters instead of formatted into the text. For the
 * statements every sign-in, refresh and session check runs, planning had cost more than running: 0.75 ms
 * to plan a refresh's rotation against 0.2 ms to run it, 1 ms against 0.55 for a sign-in's visit
 * (pg_stat_statements with track_planning, docs/benchmarks.md). After five runs Postgres keeps a generic plan
 * when it is no worse than the custom ones, which holds for these lookups by key. Names are unique per text:
 * each is made once, at module level. Values are as node-postgres sends them (arrays as arrays, objects as
 * JSON), so a text written for pg-promise's formatting ($1:name, $1:csv) cannot be prepared.
 */
export function prepared(name: string, text: string): (values: unknown[]) => InstanceType<typeof pgp.PreparedStatement> {
  // node-postgres refuses a name it has prepared with another text on that connection, at the first call:
  // refused here at module load instead.
  const known = preparedTexts.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement name "${name}" is used for two statements`);
  preparedTexts.set(name, text);
  return (values) => new pgp.PreparedStatement({ name, text, values });
}

/** Rows read through json_agg carry timestamps as ISO strings; plain rows carry Dates. Both become Dates. */
export function toDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  return v instanceof Date ? v : new Date(v as string);
}
