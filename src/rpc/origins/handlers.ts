import type { ConnectRouter } from "@connectrpc/connect";
import { OriginsService } from "../../gen/sigil/origins/v0/origins_service_pb.js";
import type { OriginRecord } from "../../db/repositories/origins.js";
import type { Deps } from "../../domain/deps.js";
import * as origins from "../../domain/origins/service.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

const toOrigin = (o: OriginRecord) => ({ id: o.id, origin: o.origin, projectEnvironmentId: o.environmentId, createdAt: ts(o.createdAt) });

export function registerOrigins(router: ConnectRouter, deps: Deps) {
  router.service(OriginsService, {
    async listOrigins(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await origins.listOrigins(deps, access, pageOf(req));
      return { origins: items.map(toOrigin), count };
    },
    async createOrigin(req, ctx) {
      const access = environmentOf(ctx);
      return { origin: toOrigin(await origins.addOrigin(deps, access, req.origin)) };
    },
    async deleteOrigin(req, ctx) {
      const access = environmentOf(ctx);
      await origins.deleteOrigin(deps, access, req.originId);
      return {};
    },
  });
}
