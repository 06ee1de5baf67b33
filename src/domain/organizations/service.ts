import { DomainError, badRequest, notFound } from "../../errors.js";
import * as orgs from "../../db/repositories/organizations.js";
import { findAccount, insertMember, insertOrganization } from "../../db/repositories/tenancy.js";
import { audited, recordChange } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { Actor, OrganizationAccess } from "../tenancy/access.js";
import { dropCachedPrincipals } from "../tokens/cache.js";

type Page = { offset: number; limit: number };

export const ownerRequired = (what: string) => new DomainError("forbidden", "owner_required", `only an owner of the organization may ${what}`);

export interface OrganizationInput {
  name?: string;
  description?: string | null;
  websiteUrl?: string | null;
}

const auditView = (o: orgs.OrganizationRecord) => ({ id: o.id, name: o.name, description: o.description, websiteUrl: o.websiteUrl, address: o.address });

export function listAccountOrganizations(deps: Deps, accountId: string, page: Page) {
  return orgs.listAccountOrganizations(deps.db, accountId, page);
}

/** The organization with the caller's role in it. */
export async function getOrganization(deps: Deps, access: OrganizationAccess): Promise<orgs.OrganizationRecord> {
  const o = await orgs.findOrganization(deps.db, access.organizationId);
  if (!o) throw notFound("organization");
  return { ...o, role: access.role };
}

/** Creates an organization; the calling account becomes its owner. */
export async function createOrganization(
  deps: Deps,
  account: { accountId: string; actor: Actor },
  input: { name: string; description: string | null; websiteUrl: string | null },
): Promise<orgs.OrganizationRecord> {
  return deps.db.tx(async (t) => {
    const acct = await findAccount(t, account.accountId);
    if (!acct) throw notFound("account");
    const { id } = await insertOrganization(t, input.name);
    const created = (await orgs.updateOrganization(t, id, { description: input.description, websiteUrl: input.websiteUrl }))!;
    const owner = await insertMember(t, id, acct, "owner");
    const access: OrganizationAccess = { organizationId: id, role: "owner", actor: { ...account.actor, memberId: owner.id } };
    await recordChange(t, access, { action: "organization.created", resourceType: "organization", resourceId: id, after: auditView(created), environmentId: null });
    await recordChange(t, access, {
      action: "member.created",
      resourceType: "member",
      resourceId: owner.id,
      after: { id: owner.id, accountId: owner.accountId, email: owner.email, role: owner.role },
      environmentId: null,
    });
    return { ...created, role: "owner" };
  });
}

export async function updateOrganization(deps: Deps, access: OrganizationAccess, patch: OrganizationInput) {
  if (patch.name !== undefined && patch.name.trim() === "") throw badRequest("invalid_name", "name must not be empty", { field: "name" });
  return audited(deps, access, async (t, record) => {
    const before = await orgs.findOrganization(t, access.organizationId);
    if (!before) throw notFound("organization");
    const after = (await orgs.updateOrganization(t, access.organizationId, patch))!;
    await record({ action: "organization.updated", resourceType: "organization", resourceId: after.id, before: auditView(before), after: auditView(after), environmentId: null });
    return { ...after, role: access.role };
  }, { lockOrganization: "key share" });
}

export async function updateOrganizationAddress(deps: Deps, access: OrganizationAccess, address: orgs.OrganizationAddress) {
  return audited(deps, access, async (t, record) => {
    const before = await orgs.findOrganization(t, access.organizationId);
    if (!before) throw notFound("organization");
    const after = (await orgs.updateOrganizationAddress(t, access.organizationId, address))!;
    await record({
      action: "organization.address_updated",
      resourceType: "organization",
      resourceId: after.id,
      before: { address: before.address },
      after: { address: after.address },
      environmentId: null,
    });
    return { ...after, role: access.role };
  }, { lockOrganization: "key share" });
}

/**
 * Deletes the organization and everything it owns (owners only). Its audit rows go with it
 * (audit_log.organization_id cascades), so the deletion is logged instead.
 */
export async function deleteOrganization(deps: Deps, access: OrganizationAccess): Promise<void> {
  if (access.role !== "owner") throw ownerRequired("delete it");
  // The audit row is written first: deleting the organization detaches it (ON DELETE SET NULL) but keeps it.
  const hashes = await audited(deps, access, async (t, record) => {
    const found = await orgs.findOrganization(t, access.organizationId);
    if (!found) throw notFound("organization");
    const h = await orgs.organizationTokenHashes(t, access.organizationId);
    await record({ action: "organization.deleted", resourceType: "organization", resourceId: access.organizationId, before: found, environmentId: null });
    await orgs.deleteOrganization(t, access.organizationId);
    return h;
  }, { lockOrganization: "update" });
  await dropCachedPrincipals(deps, hashes);
}
