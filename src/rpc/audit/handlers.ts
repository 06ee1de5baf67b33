import type { ConnectRouter } from "@connectrpc/connect";
import { AuditLogService } from "../../gen/sigil/audit/v0/audit_service_pb.js";
import type { AuditLog } from "../../gen/sigil/audit/v0/audit_pb.js";
import type { AuditRecord } from "../../db/repositories/audit.js";
import * as auditLog from "../../domain/audit-log/service.js";
import type { Deps } from "../../domain/deps.js";
import { pageOf } from "../paging.js";
import { str, ts } from "../mappers.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AuditLogSchema } from "../../gen/sigil/audit/v0/audit_pb.js";
import { environmentOf, organizationOf } from "../tenant-context.js";

function toAuditLog(a: AuditRecord): MessageInitShape<typeof AuditLogSchema> {
  return {
    id: a.id,
    action: a.action,
    resourceType: a.resourceType,
    resourceId: a.resourceId,
    actor: { tokenId: str(a.actorTokenId), memberId: str(a.actorMemberId), accountId: str(a.actorAccountId) },
    // jsonb round-trips to JSON values; a Struct takes exactly those.
    changes: (a.changes ?? {}) as AuditLog["changes"],
    requestId: str(a.requestId),
    createdAt: ts(a.createdAt),
    organizationId: a.organizationId,
    environmentId: str(a.environmentId),
  };
}

export function registerAuditLog(router: ConnectRouter, deps: Deps) {
  router.service(AuditLogService, {
    async listEnvironmentAuditLogs(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await auditLog.environmentAuditLog(deps, access, { ...pageOf(req), resourceType: req.resourceType, resourceId: req.resourceId });
      return { auditLogs: items.map(toAuditLog), count };
    },
    async listOrganizationAuditLogs(req, ctx) {
      const access = organizationOf(ctx);
      const { items, count } = await auditLog.organizationAuditLog(deps, access, { ...pageOf(req), resourceType: req.resourceType, resourceId: req.resourceId });
      return { auditLogs: items.map(toAuditLog), count };
    },
  });
}
