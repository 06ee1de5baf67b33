import { randomUUID } from "node:crypto";
import { DomainError, badRequest, notFound } from "../../errors.js";
import type { Queryable } from "../../db/db.js";
import * as repo from "../../db/repositories/global-wallet-connections.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { isDomainAllowed } from "./access-control.js";

/** The apps users connected to through the environment's global wallet, optionally filtered. */
export function listConnections(
  deps: Pick<Deps, "db">,
  access: EnvironmentAccess,
  filter: { userId?: string; status?: repo.ConnectionStatus },
  page: { offset: number; limit: number },
) {
  return repo.listConnections(deps.db, access.environmentId, filter, page);
}

/**
 * Records that a user of the environment connected an app (by URL) through the global wallet. The app's
 * site must pass the access control (403 otherwise); the user must belong to the environment (404).
 */
export async function recordConnection(
  q: Queryable,
  environmentId: string,
  input: { userId: string; appUrl: string; expiresAt?: Date | null },
): Promise<repo.GlobalWalletConnectionRecord> {
  let origin: string;
  try {
    origin = new URL(input.appUrl).origin;
  } catch {
    throw badRequest("invalid_app_url", "appUrl must be an absolute URL", { field: "appUrl" });
  }
  if (!(await isDomainAllowed(q, environmentId, origin)))
    throw new DomainError("forbidden", "domain_not_allowed", "the global wallet's access control does not allow this app");
  try {
    return await repo.insertConnection(q, environmentId, { id: randomUUID(), userId: input.userId, appUrl: input.appUrl, expiresAt: input.expiresAt ?? null });
  } catch (err) {
    // INSERT ... SELECT found no user of this environment: pg-promise's one() throws QueryResultError.
    if ((err as { name?: string }).name === "QueryResultError") throw notFound("user");
    throw err;
  }
}

/** Marks a connection disconnected (the row stays, for the history). */
export async function disconnect(q: Queryable, environmentId: string, connectionId: string): Promise<repo.GlobalWalletConnectionRecord> {
  const updated = await repo.setConnectionStatus(q, environmentId, connectionId, "disconnected");
  if (!updated) throw notFound("global wallet connection");
  return updated;
}
