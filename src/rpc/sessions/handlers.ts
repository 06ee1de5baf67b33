import type { ConnectRouter } from "@connectrpc/connect";
import { SdkSessionsService } from "../../gen/sigil/sessions/v0/sessions_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { refreshSession } from "../../domain/sessions/refresh.js";
import * as sessions from "../../domain/sessions/service.js";
import { endUserOf, requestIdKey } from "../context.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toSignIn } from "./mappers.js";

export function registerSessions(router: ConnectRouter, deps: Deps): void {
  router.service(SdkSessionsService, {
    async getJwks(_req, ctx) {
      return { keys: await sessions.publishedJwks(deps, publicEnvironmentOf(ctx).environmentId) };
    },
    // Authentication (AUTH_MODE_END_USER) already proved the session live; nothing else to check.
    async sessionCheck() {
      return {};
    },
    async refreshAuth(_req, ctx) {
      const { tokens, user } = await refreshSession(deps, publicEnvironmentOf(ctx), endUserOf(ctx), ctx.values.get(requestIdKey));
      return { signIn: toSignIn(tokens, user) };
    },
    async revokeSession(_req, ctx) {
      await sessions.revokeOwnSession(deps, publicEnvironmentOf(ctx), endUserOf(ctx), ctx.values.get(requestIdKey));
      return {};
    },
  });
}
