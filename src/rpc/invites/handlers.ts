import type { ConnectRouter } from "@connectrpc/connect";
import { InvitesService } from "../../gen/sigil/invites/v0/invites_service_pb.js";
import type { InviteRecord } from "../../db/repositories/invites.js";
import type { Deps } from "../../domain/deps.js";
import * as invites from "../../domain/invites/service.js";
import { str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { organizationOf, accountOf } from "../tenant-context.js";

function toInvite(i: InviteRecord) {
  return {
    id: i.id,
    organizationId: i.organizationId,
    organizationName: i.organizationName,
    status: i.status,
    email: str(i.email),
    alias: str(i.alias),
    walletPublicKey: str(i.walletPublicKey),
    phoneNumber: str(i.phoneNumber),
    role: i.role,
    createdByEmail: str(i.createdByEmail),
    expiresAt: ts(i.expiresAt),
    createdAt: ts(i.createdAt),
  };
}

export function registerInvites(router: ConnectRouter, deps: Deps) {
  router.service(InvitesService, {
    async listOrganizationInvites(req, ctx) {
      const access = organizationOf(ctx);
      const r = await invites.listInvites(deps, access.organizationId, pageOf(req));
      return { count: r.count, invites: r.invites.map(toInvite) };
    },
    async createInvite(req, ctx) {
      const access = organizationOf(ctx);
      const created = await invites.createInvite(deps, access, {
        email: req.email || undefined,
        alias: req.alias || undefined,
        walletPublicKey: req.walletPublicKey || undefined,
        phoneNumber: req.phoneNumber || undefined,
        role: req.role,
      });
      return { invite: toInvite(created) };
    },
    // The invitee's side: account-level, the invitee is not a member yet.
    async listInvites(req, ctx) {
      const r = await invites.listAccountInvites(deps, accountOf(ctx).accountId, pageOf(req));
      return { count: r.count, invites: r.invites.map(toInvite) };
    },
    async updateInvite(req, ctx) {
      const account = accountOf(ctx);
      return { invite: toInvite(await invites.answerInvite(deps, account, req.inviteId, req.status as "accepted" | "rejected")) };
    },
    // The organization's side.
    async deleteInvite(req, ctx) {
      await invites.revokeInvite(deps, organizationOf(ctx), req.inviteId);
      return {};
    },
  });
}
