import type { Queryable } from "../db/db.js";
import * as repo from "../db/repositories/tenant-access.js";
import { isUuid } from "../db/text-match.js";
import type { PublicEnvironment } from "../domain/tenancy/access.js";
import { ProcessCache } from "../store/process-cache.js";

/** How long a process trusts that an environment exists (and its project and organization). */
const TTL_MS = 30_000;

/**
 * The environments SDK calls name, remembered per process for 30 s: every SDK call (a session check above
 * all) names one, and an environment's project and organization never change, so the check that it exists
 * need not read Postgres each time. Unknown ids are not remembered (a new environment works at once); a
 * deleted project's environments keep answering public calls for at most the TTL (their users' tokens
 * stop verifying at the same time, when the keyring's copy of the keys expires).
 */
export class PublicEnvironments {
  private readonly cache = new ProcessCache<PublicEnvironment | null>(TTL_MS, 50_000);

  constructor(private readonly db: Queryable) {}

  async find(environmentId: string): Promise<PublicEnvironment | null> {
    // Not an id at all: no such environment, without a cast error from the uuid column.
    if (!isUuid(environmentId)) return null;
    const found = this.cache.get(environmentId, (id) => this.load(id));
    const env = await found;
    if (!env) this.cache.forgetIf(environmentId, found);
    return env;
  }

  private async load(environmentId: string): Promise<PublicEnvironment | null> {
    const row = await repo.findEnvironmentTenant(this.db, environmentId, null);
    return row && { environmentId, environmentName: row.name, projectId: row.projectId, organizationId: row.organizationId };
  }
}
