import { InviteStatusEnum, InvitesApi, RoleEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** InvitesApi: one scenario per operation, keyed `InvitesApi.<operation>`, run in this order. */
export const invitesApi: Scenarios = {
  "InvitesApi.createInvite": async ({ app, memberApi, tenant, state }) => {
    const person = await app.bootstrap({ ownerEmail: `compat-invitee-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com` });
    state.invitee = person;
    state.inviteeEmail = (await app.db.one("SELECT email FROM accounts WHERE id = $1", [person.accountId])).email;
    await memberApi(InvitesApi).createInvite({
      organizationId: tenant.organizationId,
      inviteSendRequest: { email: state.inviteeEmail, alias: "Invitee", role: RoleEnum.Developer },
    });
  },
  "InvitesApi.getOrganizationInvitesByOrganizationId": async ({ memberApi, tenant, state }) => {
    const res = await memberApi(InvitesApi).getOrganizationInvitesByOrganizationId({ organizationId: tenant.organizationId });
    state.inviteId = res.invites!.find((i) => i.email === state.inviteeEmail)!.id;
  },
  "InvitesApi.getInvites": ({ api, state }) => api(InvitesApi, state.invitee.memberToken).getInvites({ status: InviteStatusEnum.Pending }),
  "InvitesApi.updateInvite": ({ api, state }) =>
    api(InvitesApi, state.invitee.memberToken).updateInvite({ inviteId: state.inviteId, inviteUpdateRequest: { status: InviteStatusEnum.Accepted } }),
  "InvitesApi.deleteInvite": async ({ memberApi, rest, tenant }) => {
    const other = await rest("POST", `/organizations/${tenant.organizationId}/invites`, { email: `compat-withdrawn-${Date.now()}@example.com`, role: "viewer" }, tenant.memberToken);
    await memberApi(InvitesApi).deleteInvite({ inviteId: other.id });
  },
};
