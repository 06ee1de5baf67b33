import type { ConnectRouter } from "@connectrpc/connect";
import { ExternalJwtService } from "../../gen/sigil/external_jwt/v0/external_jwt_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { checkExternalJwt } from "../../domain/external-jwt/check.js";
import { environmentOf } from "../tenant-context.js";

export function registerExternalJwt(router: ConnectRouter, deps: Deps) {
  router.service(ExternalJwtService, {
    async checkExternalJwt(req, ctx) {
      const access = environmentOf(ctx);
      return checkExternalJwt(deps, access, req.encodedJwt);
    },
  });
}
