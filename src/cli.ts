import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { loadConfig, type Config } from "./config.js";
import { closeDatabase, connectDatabase, type Database } from "./db/db.js";
import { migrate } from "./db/migrate.js";
import { bootstrapTenant } from "./domain/tenancy/bootstrap.js";
import { startEmbeddedPostgres } from "./infra/embedded-postgres.js";
import { lookUpRun, NoRunningSigil, requireRunning, runStatePath } from "./infra/run-state.js";
import { findTemporalCli, installTemporalCliHint } from "./infra/temporal-cli.js";

const USAGE = `usage: sigil <command>

  start [dev|api|worker]   run the service (dev: API and worker in one process, embedded defaults)
  migrate                  apply database migrations
  bootstrap [--json] [--organization NAME] [--project NAME] [--email OWNER_EMAIL]
                           create an organization, a project with live and sandbox environments, an owner
                           member, a first API token bound to the sandbox environment and a member
                           (account) token of the owner
  env                      shell exports for the running service of the data dir (eval "$(npx sigil env)")
  temporal <args...>       the Temporal CLI, pointed at the running service's Temporal and namespace

Settings come from the environment (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS, PORT, ...; see README). A
running \`npm start\` is found through <data dir>/run.json (SIGIL_DATA_DIR, default ./data): nothing to export.`;

/**
 * The database the CLI works on: DATABASE_URL; else the database of the `npm start` running on the data
 * dir (its run.json); else the data dir's embedded Postgres, started just for this command. Never a port
 * guessed from the settings: another data dir's instance may be listening there (and refuses this data
 * dir's password anyway).
 */
async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
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
    await migrate(db);
    return await work(db);
  } finally {
    await closeDatabase(db);
    await stopEmbedded?.();
  }
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** The Temporal CLI with the running service's address and namespace (explicit TEMPORAL_* settings win). */
async function runTemporalCli(config: Config, args: string[]): Promise<number> {
  const cli = findTemporalCli(config.temporalCliPath);
  if (!cli) throw new Error(`no Temporal CLI found. ${installTemporalCliHint}`);
  const env = { ...process.env };
  if (!config.temporalAddress) {
    const state = requireRunning(config.dataDir);
    env.TEMPORAL_ADDRESS = state.temporalAddress;
    env.TEMPORAL_NAMESPACE ??= state.temporalNamespace;
  }
  const child = spawn(cli, args, { stdio: "inherit", env });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
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
    case "env": {
      const state = requireRunning(config.dataDir);
      const exports: [string, string | null][] = [
        ["SIGIL_URL", state.baseUrl],
        ["SIGIL_API", state.apiUrl],
        ["DATABASE_URL", state.postgresUrl],
        ["TEMPORAL_ADDRESS", state.temporalAddress],
        ["TEMPORAL_NAMESPACE", state.temporalNamespace],
        ["REDIS_URL", state.redisUrl],
      ];
      console.log(`# the Sigil running on ${state.dataDir} (${runStatePath(state.dataDir)}), for tools in this shell (psql, temporal, curl);`);
      console.log("# an npm start from this shell would take these as external servers: start it from another one");
      for (const [name, value] of exports) if (value !== null) console.log(`export ${name}=${shellQuote(value)}`);
      return 0;
    }
    case "temporal":
      return runTemporalCli(config, rest);
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
