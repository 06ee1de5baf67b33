import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { linkSocial, signInWithSocial, type SocialProofInput } from "../../domain/social-sign-in/service.js";
import { SdkSocialSignInService, type SocialProof } from "../../gen/sigil/social_sign_in/v0/social_sign_in_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** The validated proof (validation declared `proof` required, so it is present). */
function proofOf(p: SocialProof | undefined): SocialProofInput {
  if (!p) throw new Error("validation let a request without its proof through");
  return { address: p.address, domain: p.domain, nonce: p.nonce, message: p.message, signature: p.signature };
}

export function registerSocialSignIn(router: ConnectRouter, deps: Deps): void {
  router.service(SdkSocialSignInService, {
    async decentralizedSocialSignIn(req, ctx) {
      const r = await signInWithSocial(deps, publicEnvironmentOf(ctx), proofOf(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async decentralizedSocialVerify(req, ctx) {
      const r = await linkSocial(deps, publicEnvironmentOf(ctx), endUserOf(ctx), proofOf(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
  });
}
