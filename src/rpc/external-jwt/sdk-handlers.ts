import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { linkExternalJwt, signInWithExternalJwt } from "../../domain/external-jwt/sign-in.js";
import { SdkExternalAuthService } from "../../gen/sigil/external_jwt/v0/sdk_external_auth_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

export function registerSdkExternalAuth(router: ConnectRouter, deps: Deps): void {
  router.service(SdkExternalAuthService, {
    async externalAuthSignin(req, ctx) {
      const r = await signInWithExternalJwt(deps, publicEnvironmentOf(ctx), req.jwt, clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async externalAuthVerify(req, ctx) {
      const r = await linkExternalJwt(deps, publicEnvironmentOf(ctx), endUserOf(ctx), req.jwt, clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
  });
}
