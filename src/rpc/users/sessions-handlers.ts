import type { ConnectRouter } from "@connectrpc/connect";
import { SessionsService } from "../../gen/sigil/users/v0/sessions_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { resourceEnvironmentAccess } from "../../domain/tenancy/access.js";
import * as users from "../../domain/users/service.js";
import { toSession } from "./mappers.js";

export function registerSessions(router: ConnectRouter, deps: Deps) {
  router.service(SessionsService, {
    async revokeSession(req, ctx) {
      const access = await resourceEnvironmentAccess(deps, ctx, "sessions", req.sessionId);
      return { session: toSession(await users.revokeSession(deps, access, req.sessionId)) };
    },
    async getSession(req, ctx) {
      const access = await resourceEnvironmentAccess(deps, ctx, "users", req.userId);
      return { session: toSession(await users.getSession(deps, access, req.userId, req.sessionId)) };
    },
  });
}
