import { randomUUID } from "node:crypto";
import { conflict, notFound, unprocessable } from "../../errors.js";
import type { Queryable } from "../../db/db.js";
import * as repo from "../../db/repositories/global-wallet-access.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { hostnameOf, matchCandidates, normalizeDomainEntry } from "./hostnames.js";

const snapshot = (a: repo.AccessControlRecord) => ({ id: a.id, mode: a.mode, enabledAt: a.enabledAt });
const domainSnapshot = (d: repo.AccessDomainRecord) => ({ id: d.id, domain: d.domain, type: d.type });

/**
 * Whether a site may open the environment's global wallet. `domain` is the site's hostname or origin.
 * Without an enabled access control every site may. Otherwise the most specific listed entry that
 * matches decides (the exact hostname, then the wildcard of the nearest parent); when none matches,
 * allowList mode denies and blockList mode allows. A value that is not a hostname or origin is denied.
 */
export async function isDomainAllowed(q: Queryable, environmentId: string, domain: string): Promise<boolean> {
  const host = hostnameOf(domain);
  if (!host) return false;
  const control = await repo.findAccessControl(q, environmentId);
  if (!control || !control.enabledAt) return true;
  const candidates = matchCandidates(host);
  const entries = await repo.findMatchingAccessDomains(q, environmentId, candidates);
  for (const c of candidates) {
    const hit = entries.find((e) => e.domain === c);
    if (hit) return hit.type === "allow";
  }
  return control.mode === "blockList";
}

/** The access control with its domains, for answers that carry both (the first `limit` domains). */
export async function withDomains(deps: Pick<Deps, "db">, access: EnvironmentAccess, control: repo.AccessControlRecord, limit: number) {
  const { domains } = await repo.listAccessDomains(deps.db, access.environmentId, { offset: 0, limit });
  return { control, domains };
}

export async function getAccessControlWithDomains(deps: Pick<Deps, "db">, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  const control = await repo.findAccessControl(deps.db, access.environmentId);
  if (!control) throw notFound("global wallet access control");
  const { domains, count } = await repo.listAccessDomains(deps.db, access.environmentId, page);
  return { control, domains, count };
}

/** Creates the environment's access control, enabled at once (409 when it exists). */
export async function createAccessControl(deps: Pick<Deps, "db">, access: EnvironmentAccess, mode: repo.AccessMode) {
  if (await repo.findAccessControl(deps.db, access.environmentId)) throw alreadyExists();
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertAccessControl(t, access.environmentId, randomUUID(), mode);
      await record({ action: "global_wallet_access_control.created", resourceType: "global_wallet_access_control", resourceId: created.id, after: snapshot(created) });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw alreadyExists();
    throw err;
  }
}

export async function updateAccessControl(deps: Pick<Deps, "db">, access: EnvironmentAccess, mode: repo.AccessMode) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findAccessControl(t, access.environmentId);
    const after = before && (await repo.updateAccessControlMode(t, access.environmentId, mode));
    if (!before || !after) throw notFound("global wallet access control");
    await record({
      action: "global_wallet_access_control.updated",
      resourceType: "global_wallet_access_control",
      resourceId: after.id,
      before: snapshot(before),
      after: snapshot(after),
    });
    return after;
  });
}

export async function setAccessControlEnabled(deps: Pick<Deps, "db">, access: EnvironmentAccess, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findAccessControl(t, access.environmentId);
    const after = before && (await repo.setAccessControlEnabled(t, access.environmentId, enabled));
    if (!before || !after) throw notFound("global wallet access control");
    await record({
      action: enabled ? "global_wallet_access_control.enabled" : "global_wallet_access_control.disabled",
      resourceType: "global_wallet_access_control",
      resourceId: after.id,
      before: snapshot(before),
      after: snapshot(after),
    });
    return after;
  });
}

/** The entry type a mode lists: an allowList lists allowed domains, a blockList blocked ones. */
export const listedType = (mode: repo.AccessMode): repo.DomainType => (mode === "allowList" ? "allow" : "block");

/**
 * Lists a hostname as allowed or blocked (422 domain_already_exists when it is listed already, either way).
 * Without a type, the domain gets the one its access control's mode lists.
 */
export async function addDomain(deps: Pick<Deps, "db">, access: EnvironmentAccess, input: { domain: string; type?: repo.DomainType }) {
  const domain = normalizeDomainEntry(input.domain);
  const control = await repo.findAccessControl(deps.db, access.environmentId);
  if (!control) throw notFound("global wallet access control");
  const type = input.type ?? listedType(control.mode);
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertAccessDomain(t, access.environmentId, { id: randomUUID(), accessControlId: control.id, domain, type });
      await record({
        action: "global_wallet_access_control_domain.created",
        resourceType: "global_wallet_access_control_domain",
        resourceId: created.id,
        after: domainSnapshot(created),
      });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505")
      throw unprocessable("domain_already_exists", `${domain} is already listed in this access control`, { field: "domain" });
    throw err;
  }
}

export async function deleteDomain(deps: Pick<Deps, "db">, access: EnvironmentAccess, domainId: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteAccessDomain(t, access.environmentId, domainId);
    if (!deleted) throw notFound("global wallet access control domain");
    await record({
      action: "global_wallet_access_control_domain.deleted",
      resourceType: "global_wallet_access_control_domain",
      resourceId: deleted.id,
      before: domainSnapshot(deleted),
    });
  });
}

const alreadyExists = () => conflict("access_control_already_exists", "a global wallet access control already exists for this environment");
