import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "./db.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** Any constant works; it keeps two processes starting at once from applying the same migration twice. */
const MIGRATION_LOCK_KEY = 73_516_001;

export interface Migration {
  version: string;
  sql: string;
}

/** Versioned migration files `NNN_name.sql`, in order. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ""), sql: readFileSync(path.join(dir, f), "utf8") }));
}

/** Applies the migrations not yet applied, each in its own transaction; returns the versions applied. */
export async function migrate(db: Database, migrations = listMigrations()): Promise<string[]> {
  return db.task(async (t) => {
    await t.any("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await t.none(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const done = new Set((await t.map("SELECT version FROM schema_migrations", [], (r) => r.version as string)));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        await t.tx(async (tx) => {
          await tx.none(m.sql);
          await tx.none("INSERT INTO schema_migrations (version) VALUES ($1)", [m.version]);
        });
        applied.push(m.version);
      }
      return applied;
    } finally {
      await t.any("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  });
}

/**
 * The migrations this release has that the database has not applied yet, without applying them: a process
 * that must not change the schema (SIGIL_MIGRATE_ON_START=false, the migration Job ran them) refuses to start
 * on an older schema. A database ahead of this release is fine: during a rollout the old version runs on the
 * new schema, which is why migrations only add.
 */
export async function pendingMigrations(db: Database, migrations = listMigrations()): Promise<string[]> {
  const table = await db.oneOrNone<{ name: string | null }>("SELECT to_regclass('schema_migrations')::text AS name");
  const done = new Set(table?.name ? await db.map("SELECT version FROM schema_migrations", [], (r) => r.version as string) : []);
  return migrations.map((m) => m.version).filter((v) => !done.has(v));
}
