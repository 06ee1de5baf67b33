import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { ssoProviderForEmail } from "../../domain/sso/check.js";
import { SdkSsoService } from "../../gen/sigil/sso/v0/sdk_sso_service_pb.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** Whether SSO serves an address (public SDK surface). */
export function registerSdkSso(router: ConnectRouter, deps: Deps): void {
  router.service(SdkSsoService, {
    async checkSsoProvider(req, ctx) {
      const r = await ssoProviderForEmail(deps, publicEnvironmentOf(ctx), req.email);
      return { check: r.type === "sso" ? { type: "sso", provider: r.protocol, id: r.providerId } : { type: "otp" } };
    },
  });
}
