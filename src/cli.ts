import { parseArgs } from "node:util";
import { loadConfig, type Config } from "./config.js";
import { closeDatabase, connectDatabase, type Database } from "./db/db.js";
import { migrate } from "./db/migrate.js";
import { bootstrapTenant } from "./domain/tenancy/bootstrap.js";
import { embeddedPostgresUrl, startEmbeddedPostgres } from "./infra/embedded-postgres.js";

const USAGE = `usage: sigil <command>

  start [dev|api|worker]   run the service (dev: API and worker in one process, embedded defaults)
  migrate                  apply database migrations
  bootstrap [--json] [--organization NAME] [--project NAME] [--email OWNER_EMAIL]
                           create an organization, a project with live and sandbox environments, an owner
                           member, a first API token bound to the sandbox environment and a member
                           (account) token of the owner

Settings come from the environment (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS, PORT, ...; see README).`;

/**
 * The database the CLI works on: DATABASE_URL; else the embedded Postgres of an `npm start` that is
 * running; else the embedded Postgres started just for this command (same data directory).
 */
async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url: string;
  if (config.databaseUrl) url = config.databaseUrl;
  else {
    url = embeddedPostgresUrl(config.embeddedPostgresPort);
    const probe = connectDatabase(url, { max: 1 });
    const running = await probe.one("SELECT 1 AS ok").then(() => true, () => false);
    await closeDatabase(probe);
    if (!running) {
      const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort });
      url = pg.url;
      stopEmbedded = pg.stop;
    }
  }
  const db = connectDatabase(url, { max: 2 });
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await closeDatabase(db);
    await stopEmbedded?.();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case "migrate": {
      const applied = await withDatabase(config, async (db) => migrate(db));
      console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
      return 0;
    }
    case "bootstrap": {
      const { values } = parseArgs({
        args: rest,
        options: { json: { type: "boolean" }, organization: { type: "string" }, project: { type: "string" }, email: { type: "string" } },
      });
      const result = await withDatabase(config, (db) =>
        bootstrapTenant(db, { organizationName: values.organization, projectName: values.project, ownerEmail: values.email }),
      );
      if (values.json) console.log(JSON.stringify(result));
      else {
        console.log(`organization  ${result.organizationId}\nproject       ${result.projectId}`);
        console.log(`environment   ${result.environmentId} (sandbox; live: ${result.liveEnvironmentId})`);
        console.log(`API token     ${result.token} (environment token, bound to the sandbox environment)`);
        console.log(`member token  ${result.memberToken} (account token of the owner, for every organization of the account)`);
        console.log("\nThe tokens are shown once; only their hashes are stored.");
      }
      return 0;
    }
    case "start": {
      process.argv = [process.argv[0]!, process.argv[1]!, rest[0] ?? "dev"];
      await import("./main.js");
      return -1; // keeps running
    }
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`unknown command ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    console.error(`sigil: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
