import type { ConnectRouter } from "@connectrpc/connect";
import { SessionsService } from "../../gen/sigil/users/v0/sessions_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as users from "../../domain/users/service.js";
import { toSession } from "./mappers.js";
import { environmentOf } from "../tenant-context.js";

export function registerSessions(router: ConnectRouter, deps: Deps) {
  router.service(SessionsService, {
    async revokeSession(req, ctx) {
      const access = environmentOf(ctx);
      return { session: toSession(await users.revokeSession(deps, access, req.sessionId)) };
    },
    async getSession(req, ctx) {
      const access = environmentOf(ctx);
      return { session: toSession(await users.getSession(deps, access, req.userId, req.sessionId)) };
    },
  });
}
