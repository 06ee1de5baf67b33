import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeDatabase, connectDatabase, type Database } from "../../src/db/db.js";
import { migrate } from "../../src/db/migrate.js";
import { startEmbeddedPostgres } from "../../src/infra/embedded-postgres.js";
import { findFreePort } from "../../src/infra/ports.js";

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** `fn` on a one-connection pool to `url`, closed after: CREATE/DROP DATABASE are issued from any database. */
async function onServer<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = connectDatabase(url, { max: 1 });
  try {
    return await fn(db);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * A database for this test run only, named sigil_test_<random> so that concurrent runs (two developers'
 * terminals, CI and a leftover) never meet. Created on the server of `serverUrl` (the caller's
 * DATABASE_URL, whose own database is only used to issue CREATE/DROP DATABASE), dropped at teardown.
 */
export async function createTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sigil_test_${randomBytes(6).toString("hex")}`;
  const admin = connectDatabase(serverUrl, { max: 1 });
  try {
    await admin.none("CREATE DATABASE $1:name", [name]);
  } catch (err) {
    await closeDatabase(admin);
    throw new Error(`cannot create the test database on DATABASE_URL's server: ${(err as Error).message}`);
  }
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      try {
        // FORCE (Postgres >= 13): a test that forgot to close its pool must not keep the database alive.
        await admin.none("DROP DATABASE IF EXISTS $1:name WITH (FORCE)", [name]);
      } finally {
        await closeDatabase(admin);
      }
    },
  };
}

/**
 * The migrated template each test app's database is cloned from: `<run database>_template`, migrated once per
 * run, then closed to connections, because CREATE DATABASE ... TEMPLATE refuses a source anyone is connected
 * to (and nothing should write to it). Returns its name.
 */
export async function createTemplateDatabase(runUrl: string): Promise<string> {
  const name = `${databaseOf(runUrl)}_template`;
  await onServer(runUrl, (admin) => admin.none("CREATE DATABASE $1:name", [name]));
  const db = connectDatabase(withDatabase(runUrl, name), { max: 1 });
  try {
    await migrate(db);
  } finally {
    await closeDatabase(db);
  }
  await onServer(runUrl, (admin) => admin.none("ALTER DATABASE $1:name ALLOW_CONNECTIONS false", [name]));
  return name;
}

/**
 * A database of one test app's own, `<run database>_<random>`, cloned from the template (a file copy on the
 * server: ~100-300 ms, against seconds for running the migrations), dropped by `drop`. Each app is then a
 * deployment of its own: its database, sealing key, task queues and Redis prefix.
 */
export async function cloneTemplateDatabase(runUrl: string, template: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${databaseOf(runUrl)}_${randomBytes(4).toString("hex")}`;
  await onServer(runUrl, (admin) => admin.none("CREATE DATABASE $1:name TEMPLATE $2:name", [name, template]));
  return {
    url: withDatabase(runUrl, name),
    // FORCE: a test that forgot to close a pool must not keep the database alive.
    drop: async () => {
      await onServer(runUrl, (admin) => admin.none("DROP DATABASE IF EXISTS $1:name WITH (FORCE)", [name]));
    },
  };
}

/** Drops the run's other databases (the template, apps whose file died before stopping them); at teardown. */
export async function dropRunDatabases(runUrl: string): Promise<void> {
  await onServer(runUrl, async (admin) => {
    const names = await admin.map("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [`${databaseOf(runUrl)}_`], (r) => r.datname as string);
    for (const name of names) await admin.none("DROP DATABASE IF EXISTS $1:name WITH (FORCE)", [name]);
  });
}

/** An embedded Postgres in a temp dir on a free port, deleted at teardown (no DATABASE_URL given). */
export async function startTestPostgres(log: (line: string) => void): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "sigil-test-pg-"));
  try {
    const pg = await startEmbeddedPostgres({
      dataDir,
      port: await findFreePort(),
      database: `sigil_test_${randomBytes(6).toString("hex")}`,
      persistent: false,
      log,
    });
    return {
      url: pg.url,
      stop: async () => {
        await pg.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}
