import type { Queryable } from "../db/db.js";
import { findEnvironment } from "../db/repositories/tenancy.js";
import type { Actor, EnvironmentAccess } from "../domain/tenancy/access.js";
import { notFoundError } from "./args.js";

/**
 * The access a CLI change acts with: the environment named on the command line, resolved as the tenancy
 * interceptor resolves an API call's (its organization and project), with the CLI's actor and no role.
 */
export async function environmentAccess(q: Queryable, environmentId: string, actor: Actor): Promise<EnvironmentAccess> {
  const env = await findEnvironment(q, environmentId);
  if (!env) throw notFoundError("environment", environmentId);
  return { organizationId: env.organizationId, projectId: env.projectId, environmentId: env.id, environmentName: env.name, role: null, actor };
}
