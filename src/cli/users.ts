import type { Config } from "../config.js";
import * as operator from "../db/repositories/operator.js";
import { findEnvironment } from "../db/repositories/tenancy.js";
import { revokeUserSessions } from "../domain/users/service.js";
import { notFoundError, parseCommand, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { environmentAccess } from "./environment-access.js";
import { formatTable, printResult, usageError } from "./output.js";
import { cliActor, withDeps } from "./services.js";

export const USERS_USAGE = `usage: sigil users find --environment ID (--email ADDRESS | --phone NUMBER | --wallet ADDRESS | --id USER_ID) [--json]`;

export const SESSIONS_USAGE = `usage: sigil sessions revoke --environment ID --user USER_ID [--json]`;

/** `sigil users find`: the live users of an environment with one identifier (what support is asked about). */
export async function usersCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "find") throw usageError(sub ? `unknown subcommand users ${sub}` : "missing subcommand", USERS_USAGE);
  const { values } = parseCommand(
    rest,
    { environment: { type: "string" }, email: { type: "string" }, phone: { type: "string" }, wallet: { type: "string" }, id: { type: "string" } },
    USERS_USAGE,
  );
  const environmentId = uuidArg(values.environment, "--environment", USERS_USAGE);
  const given = (["email", "phone", "wallet", "id"] as const).filter((k) => values[k] !== undefined);
  if (given.length !== 1) throw usageError("give exactly one of --email, --phone, --wallet, --id", USERS_USAGE);
  const key = given[0]!;
  const by: operator.UserLookup =
    key === "id" ? { id: uuidArg(values.id, "--id", USERS_USAGE) } : ({ [key]: values[key]! } as operator.UserLookup);
  const users = await withDatabase(
    config,
    async (db) => {
      if (!(await findEnvironment(db, environmentId))) throw notFoundError("environment", environmentId);
      return operator.findUserSummaries(db, environmentId, by);
    },
    { migrate: false },
  );
  printResult(!!values.json, { users }, () =>
    formatTable(users, [
      { header: "id", value: (u) => u.id },
      { header: "email", value: (u) => u.email },
      { header: "phone", value: (u) => u.phoneNumber },
      { header: "wallets", value: (u) => u.wallets },
      { header: "live sessions", value: (u) => u.liveSessions },
      { header: "created", value: (u) => u.createdAt },
      { header: "last visit", value: (u) => u.lastVisit },
    ]),
  );
  return 0;
}

/**
 * `sigil sessions revoke`: every live session of a user, through the domain function the API's revoke uses,
 * so the refresh tokens stop, every api process sees it at once (the shared store's marker) and the
 * user.sessions.revoked event and audit row are written.
 */
export async function sessionsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "revoke") throw usageError(sub ? `unknown subcommand sessions ${sub}` : "missing subcommand", SESSIONS_USAGE);
  const { values } = parseCommand(rest, { environment: { type: "string" }, user: { type: "string" } }, SESSIONS_USAGE);
  const environmentId = uuidArg(values.environment, "--environment", SESSIONS_USAGE);
  const userId = uuidArg(values.user, "--user", SESSIONS_USAGE);
  const actor = cliActor();
  const revoked = await withDeps(config, { temporal: false, changesCaches: true }, async (deps) =>
    revokeUserSessions(deps, await environmentAccess(deps.db, environmentId, actor), userId),
  );
  printResult(!!values.json, { userId, revokedSessions: revoked, requestId: actor.requestId }, () =>
    `revoked ${revoked} session${revoked === 1 ? "" : "s"} of user ${userId} (audit request id ${actor.requestId})`,
  );
  return 0;
}
