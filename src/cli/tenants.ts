import type { Config } from "../config.js";
import * as operator from "../db/repositories/operator.js";
import { notFoundError, optionalUuid, parseCommand, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { formatFields, formatTable, printResult, usageError } from "./output.js";

export const TENANTS_USAGE = `usage: sigil tenants list [--json]
       sigil tenants show <organizationId> [--json]`;

export const ENVIRONMENTS_USAGE = `usage: sigil environments list [--organization ID] [--json]
       sigil environments show <environmentId> [--json]`;

const read = <T>(config: Config, work: Parameters<typeof withDatabase<T>>[1]) => withDatabase(config, work, { migrate: false });

/** `sigil tenants list|show`: the organizations of this deployment (each a tenant), with what they hold. */
export async function tenantsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") {
    const { values } = parseCommand(rest, {}, TENANTS_USAGE);
    const organizations = await read(config, (db) => operator.listOrganizationSummaries(db));
    printResult(!!values.json, { organizations }, () =>
      formatTable(organizations, [
        { header: "id", value: (o) => o.id },
        { header: "name", value: (o) => o.name },
        { header: "projects", value: (o) => o.projects },
        { header: "environments", value: (o) => o.environments },
        { header: "members", value: (o) => o.members },
        { header: "created", value: (o) => o.createdAt },
      ]),
    );
    return 0;
  }
  if (sub === "show") {
    const { values, positionals } = parseCommand(rest, {}, TENANTS_USAGE, { min: 1, max: 1 });
    const id = uuidArg(positionals[0], "organizationId", TENANTS_USAGE);
    const found = await read(config, async (db) => {
      const organization = await operator.findOrganizationSummary(db, id);
      return organization ? { organization, environments: await operator.listEnvironmentSummaries(db, id) } : null;
    });
    if (!found) throw notFoundError("organization", id);
    const { organization: o, environments } = found;
    printResult(!!values.json, found, () =>
      [
        formatFields([
          ["organization", o.id],
          ["name", o.name],
          ["created", o.createdAt],
          ["projects", o.projects],
          ["members", o.members],
        ]),
        "",
        environmentTable(environments),
      ].join("\n"),
    );
    return 0;
  }
  throw usageError(sub ? `unknown subcommand tenants ${sub}` : "missing subcommand", TENANTS_USAGE);
}

const environmentTable = (environments: operator.EnvironmentSummary[]) => formatTable(environments, environmentColumns);

/** `sigil environments list|show`: environments (of one organization, or all), with counts of what they hold. */
export async function environmentsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") {
    const { values } = parseCommand(rest, { organization: { type: "string" } }, ENVIRONMENTS_USAGE);
    const organizationId = optionalUuid(values.organization, "--organization", ENVIRONMENTS_USAGE);
    const environments = await read(config, async (db) => {
      if (organizationId && !(await operator.findOrganizationSummary(db, organizationId))) throw notFoundError("organization", organizationId);
      return operator.listEnvironmentSummaries(db, organizationId);
    });
    printResult(!!values.json, { environments }, () =>
      formatTable(environments, [{ header: "organization", value: (e) => e.organizationName }, ...environmentColumns]),
    );
    return 0;
  }
  if (sub === "show") {
    const { values, positionals } = parseCommand(rest, {}, ENVIRONMENTS_USAGE, { min: 1, max: 1 });
    const id = uuidArg(positionals[0], "environmentId", ENVIRONMENTS_USAGE);
    const found = await read(config, async (db) => {
      const environment = await operator.findEnvironmentSummary(db, id);
      return environment ? { environment, counts: await operator.environmentCounts(db, id) } : null;
    });
    if (!found) throw notFoundError("environment", id);
    const { environment: e, counts: c } = found;
    printResult(!!values.json, { ...e, ...c }, () =>
      formatFields([
        ["environment", e.id],
        ["name", e.name],
        ["organization", `${e.organizationName} (${e.organizationId})`],
        ["project", `${e.projectName} (${e.projectId})`],
        ["created", e.createdAt],
        ["users", e.users],
        ["live sessions", c.liveSessions],
        ["wallets", c.wallets],
        ["API tokens", e.tokens],
        ["webhooks", `${e.webhooks} (${c.enabledWebhooks} enabled)`],
        ["webhook messages", `${c.pendingWebhookMessages} pending, ${c.failedWebhookMessages} failed`],
      ]),
    );
    return 0;
  }
  throw usageError(sub ? `unknown subcommand environments ${sub}` : "missing subcommand", ENVIRONMENTS_USAGE);
}

const environmentColumns: { header: string; value: (e: operator.EnvironmentSummary) => unknown }[] = [
  { header: "environment", value: (e) => e.id },
  { header: "name", value: (e) => e.name },
  { header: "project", value: (e) => e.projectName },
  { header: "users", value: (e) => e.users },
  { header: "tokens", value: (e) => e.tokens },
  { header: "webhooks", value: (e) => e.webhooks },
];
