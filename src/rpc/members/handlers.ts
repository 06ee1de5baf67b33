import type { ConnectRouter } from "@connectrpc/connect";
import { MembersService } from "../../gen/sigil/members/v0/members_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as members from "../../domain/members/service.js";
import { pageOf } from "../paging.js";
import { toMember } from "./mappers.js";
import { organizationOf, accountOf } from "../tenant-context.js";

export function registerMembers(router: ConnectRouter, deps: Deps) {
  router.service(MembersService, {
    async listOrganizationMembers(req, ctx) {
      const access = organizationOf(ctx);
      const r = await members.listMembers(deps, access.organizationId, pageOf(req));
      return { members: r.members.map(toMember), count: r.count };
    },
    async updateMemberRole(req, ctx) {
      const access = organizationOf(ctx);
      return { member: toMember(await members.updateMemberRole(deps, access, req.memberId, req.role)) };
    },
    async deleteMember(req, ctx) {
      await members.deleteMember(deps, organizationOf(ctx), req.memberId);
      return {};
    },
    async delegateOwnership(req, ctx) {
      const access = organizationOf(ctx);
      // The client's form names the delegating owner in the path and the new owner in the body.
      const r = req.adminMemberIdToDelegate
        ? await members.delegateOwnership(deps, access, req.adminMemberIdToDelegate, req.memberId)
        : await members.delegateOwnership(deps, access, req.memberId);
      return { member: toMember(r.member), previousOwner: toMember(r.previousOwner) };
    },
    async listMembershipEnvironmentIds(_req, ctx) {
      const ids = await members.listMembershipEnvironmentIds(deps, accountOf(ctx).accountId);
      return { environmentIds: ids, count: ids.length };
    },
  });
}
