import type { ConnectRouter } from "@connectrpc/connect";
import { InvitesService } from "../../gen/sigil/organizations/v0/invites_service_pb.js";
import type { InviteRecord } from "../../db/repositories/invites.js";
import type { Deps } from "../../domain/deps.js";
import * as invites from "../../domain/invites/service.js";
import { organizationScope } from "../../domain/tenancy/scope.js";
import { apiCaller } from "../context.js";
import { str } from "../mappers.js";

function toInvite(i: InviteRecord) {
  return {
    id: i.id,
    organizationId: i.organizationId,
    organizationName: i.organizationName,
    status: i.status,
    email: str(i.email),
    alias: str(i.alias),
    walletPublicKey: str(i.walletPublicKey),
    role: i.role,
    createdByEmail: str(i.createdByEmail),
  };
}

export function registerInvites(router: ConnectRouter, deps: Deps) {
  router.service(InvitesService, {
    async listOrganizationInvites(req, ctx) {
      const list = await invites.listInvites(deps, organizationScope(apiCaller(ctx), req.organizationId));
      return { count: list.length, invites: list.map(toInvite) };
    },
    async createInvite(req, ctx) {
      const p = apiCaller(ctx);
      const created = await invites.createInvite(deps, p, organizationScope(p, req.organizationId), {
        email: req.email || undefined,
        alias: req.alias || undefined,
        walletPublicKey: req.walletPublicKey || undefined,
        phoneNumber: req.phoneNumber || undefined,
        role: req.role,
      });
      return { invite: toInvite(created) };
    },
  });
}
