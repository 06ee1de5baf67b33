/**
 * A database of a bench's own on DATABASE_URL's server, migrated, dropped at the end: a bench that runs a
 * worker runs a deployment, and a deployment's outbox relay serves every event of its database, which on the
 * shared dev database would include other people's tenants (sealed with keys this bench does not have).
 */
import { randomBytes } from "node:crypto";
import { closeDatabase, connectDatabase, type Database } from "../../src/db/db.js";
import { migrate } from "../../src/db/migrate.js";

async function onServer(serverUrl: string, fn: (admin: Database) => Promise<unknown>): Promise<void> {
  const admin = connectDatabase(serverUrl, { max: 1 });
  try {
    await fn(admin);
  } finally {
    await closeDatabase(admin);
  }
}

/** An empty database named `<prefix>_<random>` on the server, for what migrates it itself (a peer's server). */
export async function createEmptyDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await onServer(serverUrl, (admin) => admin.none("CREATE DATABASE $1:name", [name]));
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: async () => process.env.BENCH_KEEP_DB ? undefined : onServer(serverUrl, (admin) => admin.none("DROP DATABASE IF EXISTS $1:name WITH (FORCE)", [name])) };
}

export async function createBenchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const database = await createEmptyDatabase(serverUrl, "sigil_bench");
  const db = connectDatabase(database.url, { max: 1 });
  try {
    await migrate(db);
  } finally {
    await closeDatabase(db);
  }
  return database;
}
