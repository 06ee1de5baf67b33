import type { Queryable } from "../db/db.js";
import * as repo from "../db/repositories/tenant-access.js";
import type { PublicEnvironment } from "../domain/tenancy/access.js";

/** How long a process trusts that an environment exists (and its project and organization). */
const TTL_MS = 30_000;
const MAX_ENTRIES = 50_000;

/**
 * The environments SDK calls name, remembered per process for 30 s: every SDK call (a session check above
 * all) names one, and an environment's project and organization never change, so the check that it exists
 * need not read Postgres each time. Unknown ids are not remembered (a new environment works at once); a
 * deleted project's environments keep answering public calls for at most the TTL (their users' tokens
 * stop verifying at the same time, when the keyring's copy of the keys expires).
 */
export class PublicEnvironments {
  private readonly known = new Map<string, { env: PublicEnvironment; at: number }>();

  constructor(private readonly db: Queryable) {}

  async find(environmentId: string): Promise<PublicEnvironment | null> {
    const hit = this.known.get(environmentId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.env;
    const row = await repo.findEnvironmentTenant(this.db, environmentId, null);
    if (!row) {
      this.known.delete(environmentId);
      return null;
    }
    const env = { environmentId, environmentName: row.name, projectId: row.projectId, organizationId: row.organizationId };
    if (this.known.size >= MAX_ENTRIES) this.known.delete(this.known.keys().next().value!);
    this.known.set(environmentId, { env, at: Date.now() });
    return env;
  }
}
