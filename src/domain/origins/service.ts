import { randomUUID } from "node:crypto";
import { badRequest, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/origins.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { candidatePatterns, normalizeOrigin } from "./origin.js";

/** Origins per environment: enough for every front end and preview domain, small enough for a CORS check. */
export const MAX_ORIGINS = 100;

const snapshot = (o: repo.OriginRecord) => ({ id: o.id, origin: o.origin });

/**
 * The SDK surface's CORS check: true when `origin` (an Origin header value) is configured for the
 * environment, exactly or through a "*." pattern of one of its parent domains.
 */
export async function isOriginAllowed(deps: Pick<Deps, "db">, environmentId: string, origin: string): Promise<boolean> {
  const parsed = normalizeOrigin(origin);
  if (!parsed.ok || parsed.origin.includes("*")) return false;
  return repo.anyOriginStored(deps.db, environmentId, candidatePatterns(parsed.origin));
}

/** The environment's origin patterns, for the SDK surface's CORS answers and URL scans. */
export async function originPatterns(deps: Pick<Deps, "db">, environmentId: string): Promise<ReadonlySet<string>> {
  return new Set(await repo.allOriginPatterns(deps.db, environmentId));
}

export function listOrigins(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listOrigins(deps.db, access.environmentId, page);
}

export async function addOrigin(deps: Deps, access: EnvironmentAccess, input: string) {
  const parsed = normalizeOrigin(input);
  if (!parsed.ok) throw badRequest("invalid_origin", `origin ${parsed.reason}`, { field: "origin" });
  return audited(deps, access, async (t, record) => {
    // Serializes concurrent additions to one environment so the limit holds.
    await t.any("SELECT pg_advisory_xact_lock(hashtext('origins:' || $1))", [access.environmentId]);
    const { count } = await repo.listOrigins(t, access.environmentId, { offset: 0, limit: 0 });
    if (count >= MAX_ORIGINS) throw unprocessable("origin_limit_reached", `an environment has at most ${MAX_ORIGINS} origins`);
    let created: repo.OriginRecord;
    try {
      created = await t.tx((sp) => repo.insertOrigin(sp, access.environmentId, randomUUID(), parsed.origin));
    } catch (err) {
      if ((err as { code?: string }).code === "23505")
        throw unprocessable("origin_already_exists", `origin ${parsed.origin} is already configured for this environment`);
      throw err;
    }
    await record({ action: "origin.created", resourceType: "origin", resourceId: created.id, after: snapshot(created) });
    return created;
  });
}

export async function deleteOrigin(deps: Deps, access: EnvironmentAccess, originId: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteOrigin(t, access.environmentId, originId);
    if (!deleted) throw notFound("origin");
    await record({ action: "origin.deleted", resourceType: "origin", resourceId: deleted.id, before: snapshot(deleted) });
  });
}
