import type { Config } from "../config.js";
import { closeDatabase, connectDatabase, type Database } from "../db/db.js";
import { migrate, pendingMigrations } from "../db/migrate.js";
import { startEmbeddedPostgres } from "../infra/embedded-postgres.js";
import { lookUpRun, NoRunningSigil } from "../infra/run-state.js";
import { CliError } from "./output.js";

/**
 * The database the CLI works on: DATABASE_URL; else the database of the `npm start` running on the data
 * dir (its run.json); else the data dir's embedded Postgres, started just for this command. Never a port
 * guessed from the settings: another data dir's instance may be listening there (and refuses this data
 * dir's password anyway).
 *
 * `migrate: false` (the operator commands): the schema is left as it is, and a database that lacks this
 * release's migrations is refused with what to run. An operator command must not change the schema as a side
 * effect (during a rollout the migration Job does that, once); a database ahead of this release is fine.
 */
export async function withDatabase<T>(config: Config, work: (db: Database, applied: string[]) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url: string;
  const run = config.databaseUrl ? undefined : lookUpRun(config.dataDir);
  if (config.databaseUrl) url = config.databaseUrl;
  else if (run?.status === "running") url = run.state.postgresUrl;
  else {
    if (run?.status === "stale") console.error(`sigil: ${new NoRunningSigil(config.dataDir, run).message}; opening the data dir's own database for this command`);
    const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort });
    url = pg.url;
    stopEmbedded = pg.stop;
  }
  const db = connectDatabase(url, { max: 2 });
  try {
    if (opts.migrate === false) {
      const pending = await pendingMigrations(db);
      if (pending.length) throw new CliError(`the database lacks the migrations ${pending.join(", ")} of this release: run \`sigil migrate\` first`, "migrations_pending");
      return await work(db, []);
    }
    // What this call applied is handed on: `sigil migrate` reports it (a second migrate() would find nothing).
    return await work(db, await migrate(db));
  } finally {
    await closeDatabase(db);
    await stopEmbedded?.();
  }
}
