import type { ConnectRouter } from "@connectrpc/connect";
import { WaasService } from "../../gen/sigil/waas/v0/waas_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { environmentScope } from "../../domain/tenancy/scope.js";
import { registerEncryptionKey } from "../../domain/waas/service.js";
import { apiCaller } from "../context.js";
import { ts } from "../mappers.js";

export function registerWaas(router: ConnectRouter, deps: Deps) {
  router.service(WaasService, {
    async createDelegatedCredentials(req, ctx) {
      const k = await registerEncryptionKey(deps, environmentScope(apiCaller(ctx), req.environmentId), req);
      return {
        key: { publicKey: k.publicKey, kid: k.kid, alg: k.alg, type: k.type, createdAt: ts(k.createdAt), updatedAt: ts(k.updatedAt) },
      };
    },
  });
}
