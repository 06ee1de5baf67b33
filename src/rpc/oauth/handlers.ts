import type { ConnectRouter } from "@connectrpc/connect";
import { OauthService } from "../../gen/sigil/oauth/v0/oauth_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { startOauthAuthorization } from "../../domain/oauth/authorize.js";
import { publicEnvironmentOf } from "../tenant-context.js";

export function registerOauth(router: ConnectRouter, deps: Deps) {
  router.service(OauthService, {
    async oauthAuthorizeHtml(req, ctx) {
      const { html, headers } = await startOauthAuthorization(deps, {
        environmentId: publicEnvironmentOf(ctx).environmentId,
        providerType: req.providerType,
        redirectUri: req.redirectUri || undefined,
      });
      // The REST gateway passes these on with the page (src/gateway/index.ts FORWARDED_RESPONSE_HEADERS).
      for (const [name, value] of Object.entries(headers)) ctx.responseHeader.set(name, value);
      return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
    },
  });
}
