import { badRequest, unprocessable } from "../../errors.js";
import * as invites from "../../db/repositories/invites.js";
import { findMemberByEmail } from "../../db/repositories/tenancy.js";
import type { ApiTokenPrincipal } from "../../rpc/context.js";
import type { Deps } from "../deps.js";

/** How long an invite stays pending before it reads as expired. */
export const INVITE_TTL_DAYS = 7;

export interface CreateInviteInput {
  email?: string;
  alias?: string;
  walletPublicKey?: string;
  phoneNumber?: string;
  role: string;
}

export async function createInvite(deps: Deps, caller: ApiTokenPrincipal, organizationId: string, input: CreateInviteInput) {
  if (!input.email && !input.walletPublicKey && !input.phoneNumber)
    throw badRequest("invitee_required", "an invite needs an email, walletPublicKey or phoneNumber");
  return deps.db.tx(async (t) => {
    if (input.email) {
      if (await findMemberByEmail(t, organizationId, input.email))
        throw unprocessable("member_already_exists", "this person is already a member of the organization");
      await invites.expireStaleInvites(t, organizationId);
      if (await invites.pendingInviteExists(t, organizationId, input.email))
        throw unprocessable("invite_already_pending", "a pending invite for this email already exists");
    }
    return invites.insertInvite(t, organizationId, { ...input, createdByMemberId: caller.memberId, ttlDays: INVITE_TTL_DAYS });
  });
}

export function listInvites(deps: Deps, organizationId: string) {
  return invites.listInvites(deps.db, organizationId);
}
