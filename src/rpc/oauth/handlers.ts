import type { ConnectRouter } from "@connectrpc/connect";
import { OauthService } from "../../gen/sigil/sdk/v0/oauth_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { startOauthAuthorization } from "../../domain/oauth/authorize.js";

export function registerOauth(router: ConnectRouter, deps: Deps) {
  router.service(OauthService, {
    async oauthAuthorizeHtml(req) {
      const { html } = await startOauthAuthorization(deps, {
        environmentId: req.environmentId,
        providerType: req.providerType,
        redirectUri: req.redirectUri || undefined,
      });
      return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
    },
  });
}
