import type { ConnectRouter } from "@connectrpc/connect";
import { CustomHostnamesService } from "../../gen/sigil/custom_hostnames/v0/custom_hostnames_service_pb.js";
import type { CustomHostnameRecord } from "../../db/repositories/custom-hostnames.js";
import * as hostnames from "../../domain/custom-hostnames/service.js";
import type { Deps } from "../../domain/deps.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

export function registerCustomHostnames(router: ConnectRouter, deps: Deps) {
  const toHostname = (h: CustomHostnameRecord) => ({
    id: h.id,
    hostname: h.hostname,
    usage: h.usage,
    // The published client's CustomHostnameStatusEnum calls a failed verification "error".
    status: h.status === "failed" ? "error" : h.status,
    verificationRecords: hostnames.verificationRecords(h, deps.config.publicUrl).map((r) => ({ ...r, dnsRecordType: r.type })),
    projectEnvironmentId: h.environmentId,
    verifiedAt: ts(h.verifiedAt),
    createdAt: ts(h.createdAt),
  });

  router.service(CustomHostnamesService, {
    async listCustomHostnames(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await hostnames.listCustomHostnames(deps, access, pageOf(req));
      return { customHostnames: items.map(toHostname), count };
    },
    async createCustomHostname(req, ctx) {
      const access = environmentOf(ctx);
      return { customHostname: toHostname(await hostnames.createCustomHostname(deps, access, req.hostname, (req.usage || undefined) as CustomHostnameRecord["usage"] | undefined)) };
    },
    async deleteCustomHostname(req, ctx) {
      const access = environmentOf(ctx);
      await hostnames.deleteCustomHostname(deps, access, req.customHostnameId);
      return {};
    },
  });
}
