import { spawn } from "node:child_process";
import { loadConfig, type Config } from "./config.js";
import { bootstrapTenant } from "./domain/tenancy/bootstrap.js";
import { requireRunning, runStatePath } from "./infra/run-state.js";
import { findTemporalCli, installTemporalCliHint } from "./infra/temporal-cli.js";
import { parseCommand } from "./cli/args.js";
import { withDatabase } from "./cli/database.js";
import { reportError } from "./cli/output.js";

const USAGE = `usage: sigil <command>

  start [dev|api|worker]   run the service (dev: API and worker in one process, embedded defaults)
  migrate                  apply database migrations
  bootstrap [--json] [--organization NAME] [--project NAME] [--email OWNER_EMAIL]
                           create an organization, a project with live and sandbox environments, an owner
                           member, a first API token bound to the sandbox environment and a member
                           (account) token of the owner
  env                      shell exports for the running service of the data dir (eval "$(npx sigil env)")
  temporal <args...>       the Temporal CLI, pointed at the running service's Temporal and namespace

Operating a deployment (each takes --json; sigil <command> --help for its flags):
  doctor [--role dev|production]          check the configuration and every dependency, with what to fix
  tenants list | show <organizationId>    organizations, with their projects, environments and members
  environments list [--organization ID] | show <environmentId>
                                          environments with counts of users, tokens, webhooks, sessions
  tokens list --environment ID | revoke <tokenId>
                                          API tokens (never the token itself); revoke as the API does
  users find --environment ID (--email X | --phone P | --wallet ADDRESS | --id USER_ID)
  sessions revoke --environment ID --user USER_ID
                                          revoke every session of a user (refresh tokens included)
  webhooks backlog [--environment ID] | redrive --environment ID [--endpoint ID] [--since TIME|DURATION]
                                          messages per state per endpoint; send failed messages again
  workflows list --environment ID [--status failed|running|stuck] [--older-than 10m]
                                          an environment's failed or stuck workflows
  keys ...                                rotate the sealing keys and the environments' signing keys

Settings come from the environment (DATABASE_URL, REDIS_URL, TEMPORAL_ADDRESS, PORT, ...; see docs/configuration.md). A
running \`npm start\` is found through <data dir>/run.json (SIGIL_DATA_DIR, default ./data): nothing to export.
Exit codes: 0 done, 1 failed (a check, a dependency, an unknown id), 2 bad command line.`;

interface OperatorCommand {
  /** Printed for `sigil <command>` alone or with --help; absent: the command prints its own. */
  usage?: string;
  run(args: string[], config: Config): Promise<number>;
}

/**
 * The operator commands, each loaded only when run: a command's start pays for its own modules (the domain
 * code it calls), not for every other command's.
 */
const OPERATOR_COMMANDS: Record<string, () => Promise<OperatorCommand>> = {
  tenants: async () => import("./cli/tenants.js").then((m) => ({ usage: m.TENANTS_USAGE, run: m.tenantsCommand })),
  environments: async () => import("./cli/tenants.js").then((m) => ({ usage: m.ENVIRONMENTS_USAGE, run: m.environmentsCommand })),
  tokens: async () => import("./cli/tokens.js").then((m) => ({ usage: m.TOKENS_USAGE, run: m.tokensCommand })),
  users: async () => import("./cli/users.js").then((m) => ({ usage: m.USERS_USAGE, run: m.usersCommand })),
  sessions: async () => import("./cli/users.js").then((m) => ({ usage: m.SESSIONS_USAGE, run: m.sessionsCommand })),
  webhooks: async () => import("./cli/webhooks.js").then((m) => ({ usage: m.WEBHOOKS_USAGE, run: m.webhooksCommand })),
  workflows: async () => import("./cli/workflows.js").then((m) => ({ usage: m.WORKFLOWS_USAGE, run: m.workflowsCommand })),
  // Its own usage and help: everything after `keys` is its module's.
  keys: async () => import("./cli/keys.js").then((m) => ({ run: m.keysCommand })),
};

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
  // Read the settings only for commands that need them: doctor reports a malformed setting as a failed check.
  if (command === "doctor") {
    const { DOCTOR_USAGE, doctorCommand } = await import("./cli/doctor.js");
    return rest.includes("--help") ? help(DOCTOR_USAGE) : doctorCommand(rest, process.env);
  }
  const operator = command !== undefined && Object.hasOwn(OPERATOR_COMMANDS, command) ? await OPERATOR_COMMANDS[command]!() : undefined;
  if (operator?.usage && (rest.length === 0 || rest.includes("--help") || rest[0] === "help")) return help(operator.usage, rest.length === 0 ? 2 : 0);
  const config = loadConfig();
  if (operator) return operator.run(rest, config);
  switch (command) {
    case "migrate": {
      const applied = await withDatabase(config, async (_db, versions) => versions);
      console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
      return 0;
    }
    case "bootstrap": {
      const { values } = parseCommand(rest, { organization: { type: "string" }, project: { type: "string" }, email: { type: "string" } }, USAGE);
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

function help(usage: string, code = 0): number {
  (code === 0 ? console.log : console.error)(usage);
  return code;
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  // One line on stderr (and {"error","code"} on stdout with --json): see ./cli/output.ts.
  (err) => process.exit(reportError(err, argv.includes("--json"))),
);
