import type { Config } from "../config.js";
import * as operator from "../db/repositories/operator.js";
import { findEnvironment } from "../db/repositories/tenancy.js";
import { listTokens } from "../db/repositories/tokens.js";
import { deleteAccountToken, deleteToken } from "../domain/tokens/service.js";
import { notFoundError, parseCommand, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { formatTable, printResult, usageError } from "./output.js";
import { environmentAccess } from "./environment-access.js";
import { cliActor, withDeps } from "./services.js";

export const TOKENS_USAGE = `usage: sigil tokens list --environment ID [--json]
       sigil tokens revoke <tokenId> [--json]`;

/**
 * `sigil tokens list|revoke`: an environment's API tokens (never the token or its hash: the checksum, the
 * last characters a person can match against their copy) and revocation through the domain, as the API's
 * delete does (audit row, token.deleted event, cached principals dropped on every replica).
 */
export async function tokensCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") {
    const { values } = parseCommand(rest, { environment: { type: "string" } }, TOKENS_USAGE);
    const environmentId = uuidArg(values.environment, "--environment", TOKENS_USAGE);
    const records = await withDatabase(
      config,
      async (db) => {
        if (!(await findEnvironment(db, environmentId))) throw notFoundError("environment", environmentId);
        return listTokens(db, environmentId);
      },
      { migrate: false },
    );
    // API tokens do not expire (they live until revoked): there is no expiry to show.
    const tokens = records.map((t) => ({
      id: t.id,
      name: t.note,
      checksum: t.checksum,
      scopes: t.permissions,
      createdAt: t.createdAt,
      lastUsedAt: t.lastUsedAt,
      createdBy: t.createdBy?.email ?? t.createdBy?.alias ?? null,
    }));
    printResult(!!values.json, { tokens }, () =>
      formatTable(tokens, [
        { header: "id", value: (t) => t.id },
        { header: "name", value: (t) => t.name },
        { header: "checksum", value: (t) => t.checksum },
        { header: "scopes", value: (t) => t.scopes.length },
        { header: "created", value: (t) => t.createdAt },
        { header: "last used", value: (t) => t.lastUsedAt },
        { header: "created by", value: (t) => t.createdBy },
      ]),
    );
    return 0;
  }
  if (sub === "revoke") {
    const { values, positionals } = parseCommand(rest, {}, TOKENS_USAGE, { min: 1, max: 1 });
    const tokenId = uuidArg(positionals[0], "tokenId", TOKENS_USAGE);
    const revoked = await withDeps(config, { temporal: false, changesCaches: true }, async (deps) => {
      const owner = await operator.findTokenOwner(deps.db, tokenId);
      if (!owner) throw notFoundError("token", tokenId);
      const actor = cliActor();
      if (owner.environmentId) {
        await deleteToken(deps, await environmentAccess(deps.db, owner.environmentId, actor), tokenId);
        return { tokenId, kind: "environment", environmentId: owner.environmentId, requestId: actor.requestId };
      }
      await deleteAccountToken(deps, { accountId: owner.accountId!, actor }, tokenId);
      return { tokenId, kind: "member", accountId: owner.accountId, requestId: actor.requestId };
    });
    printResult(!!values.json, { revoked }, () => `revoked ${revoked.kind} token ${tokenId} (audit request id ${revoked.requestId})`);
    return 0;
  }
  throw usageError(sub ? `unknown subcommand tokens ${sub}` : "missing subcommand", TOKENS_USAGE);
}
