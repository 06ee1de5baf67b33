import { MembersApi, RoleEnum } from "@dynamic-labs/sdk-api";
import type { CompatContext, Scenarios } from "../harness.js";

/** A new person (an account of their own) invited into the organization with a role, and accepted: their member id. */
async function joinedMember({ app, rest, tenant }: CompatContext, organizationId: string, role: string) {
  const person = await app.bootstrap({ ownerEmail: `compat-member-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com` });
  const email = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
  const invite = await rest("POST", `/organizations/${organizationId}/invites`, { email, role }, tenant.memberToken);
  await rest("PUT", `/invites/${invite.id}`, { status: "accepted" }, person.memberToken);
  const members = await rest("GET", `/organizations/${organizationId}/members`, undefined, tenant.memberToken);
  return members.members.find((m: any) => m.email === email || m.user?.email === email).id as string;
}

/** MembersApi: one scenario per operation, keyed `MembersApi.<operation>`, run in this order. */
export const membersApi: Scenarios = {
  "MembersApi.getOrganizationMembers": ({ memberApi, tenant }) => memberApi(MembersApi).getOrganizationMembers({ organizationId: tenant.organizationId }),
  "MembersApi.membershipEnvironmentIdsGet": ({ memberApi }) => memberApi(MembersApi).membershipEnvironmentIdsGet(),
  "MembersApi.updateMemberRole": async (ctx) => {
    ctx.state.memberId = await joinedMember(ctx, ctx.tenant.organizationId, "viewer");
    await ctx.memberApi(MembersApi).updateMemberRole({ memberId: ctx.state.memberId, memberRoleField: { role: RoleEnum.Developer } });
  },
  "MembersApi.deleteMemberById": ({ memberApi, state }) => memberApi(MembersApi).deleteMemberById({ memberId: state.memberId }),
  "MembersApi.delegateOwnership": async (ctx) => {
    // In the second organization (OrganizationsApi.createOrganization), so the tenant's owner stays its owner.
    const organizationId = ctx.state.secondOrganizationId;
    const adminId = await joinedMember(ctx, organizationId, "admin");
    const members = await ctx.rest("GET", `/organizations/${organizationId}/members`, undefined, ctx.tenant.memberToken);
    const own = members.members.find((m: any) => m.role === "owner").id;
    await ctx.memberApi(MembersApi).delegateOwnership({ memberId: own, delegateOwnershipRequest: { adminMemberIdToDelegate: adminId } });
  },
};
