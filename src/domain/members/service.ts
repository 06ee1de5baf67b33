import { notFound, unprocessable } from "../../errors.js";
import * as members from "../../db/repositories/members.js";
import { membershipEnvironmentIds } from "../../db/repositories/projects.js";
import type { Member } from "../../db/repositories/tenancy.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { ownerRequired } from "../organizations/service.js";
import type { OrganizationAccess } from "../tenancy/access.js";
import { dropCachedPrincipals } from "../tokens/cache.js";

type Page = { offset: number; limit: number };

const auditView = (m: Member) => ({ id: m.id, accountId: m.accountId, email: m.email, role: m.role });
const lastOwner = () => unprocessable("last_owner", "the organization's last owner cannot be removed or demoted");

export function listMembers(deps: Deps, organizationId: string, page: Page) {
  return members.listMembers(deps.db, organizationId, page);
}

export function listMembershipEnvironmentIds(deps: Deps, accountId: string) {
  return membershipEnvironmentIds(deps.db, accountId);
}

/**
 * Owners are changed only by owners, and an organization always keeps one. Nobody becomes owner through a
 * role change: ownership moves with delegateOwnership.
 */
async function checkOwnerChange(t: Parameters<typeof members.lockOwners>[0], access: OrganizationAccess, target: Member, what: string) {
  if (target.role !== "owner") return;
  if (access.role !== "owner") throw ownerRequired(what);
  const owners = await members.lockOwners(t, access.organizationId);
  if (owners.length <= 1) throw lastOwner();
}

export async function updateMemberRole(deps: Deps, access: OrganizationAccess, memberId: string, role: string): Promise<Member> {
  const { updated, hashes } = await audited(deps, access, async (t, record) => {
    const target = await members.lockMember(t, access.organizationId, memberId);
    if (!target) throw notFound("member");
    if (role === target.role) return { updated: target, hashes: [] };
    if (role === "owner")
      throw unprocessable("use_delegate_ownership", "a member becomes owner only through PUT /members/{memberId}/delegateOwnership");
    await checkOwnerChange(t, access, target, "change an owner's role");
    const updated = await members.setMemberRole(t, access.organizationId, memberId, role);
    await record({ action: "member.updated", resourceType: "member", resourceId: memberId, before: auditView(target), after: auditView(updated), environmentId: null });
    return { updated, hashes: await members.tokenHashesCreatedBy(t, access.organizationId, memberId) };
  }, { lockOrganization: "key share" });
  // Environment tokens act with their creator's role: their cached principals carry the old one.
  await dropCachedPrincipals(deps, hashes);
  return updated;
}

/** Removes a member; the environment tokens it created in the organization are deactivated with it. */
export async function deleteMember(deps: Deps, access: OrganizationAccess, memberId: string): Promise<void> {
  const hashes = await audited(deps, access, async (t, record) => {
    const target = await members.lockMember(t, access.organizationId, memberId);
    if (!target) throw notFound("member");
    await checkOwnerChange(t, access, target, "remove an owner");
    // Before the delete: the foreign key would set created_by_member_id to null and lose the link.
    const deactivated = await members.deactivateTokensCreatedBy(t, access.organizationId, memberId);
    await members.deleteMember(t, access.organizationId, memberId);
    await record({
      action: "member.deleted",
      resourceType: "member",
      resourceId: memberId,
      before: { ...auditView(target), deactivatedTokens: deactivated.length },
      environmentId: null,
    });
    return deactivated;
  }, { lockOrganization: "key share" });
  await dropCachedPrincipals(deps, hashes);
}

/** The calling owner hands ownership to another member and becomes an admin, in one transaction. */
/**
 * Makes `memberId` the owner and the calling owner an admin. `delegatorId`, when given, must be the caller's
 * own member id (the published client names the delegating owner in the path).
 */
export async function delegateOwnership(
  deps: Deps,
  access: OrganizationAccess,
  memberId: string,
  delegatorId?: string,
): Promise<{ member: Member; previousOwner: Member }> {
  const callerId = access.actor.memberId;
  if (access.role !== "owner" || !callerId) throw ownerRequired("delegate ownership");
  if (delegatorId !== undefined && delegatorId !== callerId) throw ownerRequired("delegate ownership");
  const result = await audited(deps, access, async (t, record) => {
    await members.lockOwners(t, access.organizationId);
    const caller = await members.lockMember(t, access.organizationId, callerId);
    if (!caller || caller.role !== "owner") throw ownerRequired("delegate ownership");
    const target = await members.lockMember(t, access.organizationId, memberId);
    if (!target) throw notFound("member");
    if (target.id === caller.id) throw unprocessable("already_owner", "you are already the owner");
    const member = await members.setMemberRole(t, access.organizationId, target.id, "owner");
    const previousOwner = await members.setMemberRole(t, access.organizationId, caller.id, "admin");
    await record({ action: "member.updated", resourceType: "member", resourceId: member.id, before: auditView(target), after: auditView(member), environmentId: null });
    await record({
      action: "member.updated",
      resourceType: "member",
      resourceId: previousOwner.id,
      before: auditView(caller),
      after: auditView(previousOwner),
      environmentId: null,
    });
    const hashes = [
      ...(await members.tokenHashesCreatedBy(t, access.organizationId, member.id)),
      ...(await members.tokenHashesCreatedBy(t, access.organizationId, previousOwner.id)),
    ];
    return { member, previousOwner, hashes };
  }, { lockOrganization: "key share" });
  await dropCachedPrincipals(deps, result.hashes);
  return { member: result.member, previousOwner: result.previousOwner };
}

