import { badRequest, notFound, unprocessable } from "../../errors.js";
import * as invites from "../../db/repositories/invites.js";
import { findMemberByAccount } from "../../db/repositories/members.js";
import { findAccount, findMemberByEmail, insertMember } from "../../db/repositories/tenancy.js";
import { audited, recordChange } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { Actor, OrganizationAccess } from "../tenancy/access.js";

/** How long an invite stays pending before it reads as expired. */
export const INVITE_TTL_DAYS = 7;

type Page = { offset: number; limit: number };

export interface CreateInviteInput {
  email?: string;
  alias?: string;
  walletPublicKey?: string;
  phoneNumber?: string;
  role: string;
}

const auditView = (i: invites.InviteRecord) => ({
  id: i.id,
  email: i.email,
  alias: i.alias,
  phoneNumber: i.phoneNumber,
  walletPublicKey: i.walletPublicKey,
  role: i.role,
  status: i.status,
  expiresAt: i.expiresAt,
});

export async function createInvite(deps: Deps, access: OrganizationAccess, input: CreateInviteInput) {
  if (!input.email && !input.walletPublicKey && !input.phoneNumber)
    throw badRequest("invitee_required", "an invite needs an email, walletPublicKey or phoneNumber");
  const organizationId = access.organizationId;
  return audited(deps, access, async (t, record) => {
    if (input.email) {
      if (await findMemberByEmail(t, organizationId, input.email))
        throw unprocessable("member_already_exists", "this person is already a member of the organization");
      await invites.expireStaleInvites(t, organizationId);
      if (await invites.pendingInviteExists(t, organizationId, input.email))
        throw unprocessable("invite_already_pending", "a pending invite for this email already exists");
    }
    const created = await invites.insertInvite(t, organizationId, { ...input, createdByMemberId: access.actor.memberId, ttlDays: INVITE_TTL_DAYS });
    await record({ action: "invite.created", resourceType: "invite", resourceId: created.id, after: auditView(created), environmentId: null });
    return created;
  });
}

export function listInvites(deps: Deps, organizationId: string, page: Page) {
  return invites.listInvitesPage(deps.db, organizationId, page);
}

/** The organization revokes a pending invite. */
export async function revokeInvite(deps: Deps, access: OrganizationAccess, inviteId: string) {
  return audited(deps, access, async (t, record) => {
    const found = await invites.lockInvite(t, access.organizationId, inviteId);
    if (!found) throw notFound("invite");
    if (found.status !== "pending") throw unprocessable("invite_not_pending", `the invite is ${found.status}`);
    const revoked = await invites.setInviteStatus(t, access.organizationId, inviteId, "revoked");
    await record({ action: "invite.revoked", resourceType: "invite", resourceId: inviteId, before: auditView(found), after: auditView(revoked), environmentId: null });
    return revoked;
  });
}

/** The account's e-mail: invites are addressed to it. Accounts without one have no invites. */
async function accountEmail(deps: Deps, accountId: string): Promise<string | null> {
  return (await findAccount(deps.db, accountId))?.email ?? null;
}

/** The invitee's pending invites (addressed to the account's e-mail), from every organization. */
export async function listAccountInvites(deps: Deps, accountId: string, page: Page) {
  const email = await accountEmail(deps, accountId);
  if (!email) return { invites: [], count: 0 };
  return invites.listInvitesForEmail(deps.db, email, page);
}

/**
 * The invitee answers an invite addressed to its account's e-mail. Accepting adds the account to the
 * organization with the invite's role, in the same transaction as the status change and the audit rows.
 * Invites to other addresses answer 404 like unknown ids.
 */
export async function answerInvite(deps: Deps, account: { accountId: string; actor: Actor }, inviteId: string, status: "accepted" | "rejected") {
  const acct = await findAccount(deps.db, account.accountId);
  if (!acct?.email) throw notFound("invite");
  return deps.db.tx(async (t) => {
    const found = await invites.lockInviteForEmail(t, inviteId, acct.email!);
    if (!found) throw notFound("invite");
    if (found.status === "expired") throw unprocessable("invite_expired", "the invite has expired");
    if (found.status !== "pending") throw unprocessable("invite_not_pending", `the invite is ${found.status}`);
    const organizationId = found.organizationId;
    let actor: Actor = { ...account.actor, memberId: null };
    if (status === "accepted") {
      if (await findMemberByAccount(t, organizationId, acct.id))
        throw unprocessable("member_already_exists", "this account is already a member of the organization");
      const member = await insertMember(t, organizationId, acct, found.role);
      actor = { ...actor, memberId: member.id };
      const access = { organizationId, role: found.role, actor };
      await recordChange(t, access, {
        action: "member.created",
        resourceType: "member",
        resourceId: member.id,
        after: { id: member.id, accountId: member.accountId, email: member.email, role: member.role, inviteId },
        environmentId: null,
      });
    }
    const updated = await invites.setInviteStatus(t, organizationId, inviteId, status);
    await recordChange(t, { organizationId, role: null, actor }, {
      action: `invite.${status}`,
      resourceType: "invite",
      resourceId: inviteId,
      before: auditView(found),
      after: auditView(updated),
      environmentId: null,
    });
    return updated;
  });
}
