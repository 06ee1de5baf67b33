import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { startEmbeddedPostgres } from "../../src/infra/embedded-postgres.js";
import { findFreePort } from "../../src/infra/ports.js";


function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
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
