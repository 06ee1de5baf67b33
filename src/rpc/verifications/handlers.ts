import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import * as verifications from "../../domain/verifications/service.js";
import { SdkVerificationsService } from "../../gen/sigil/verifications/v0/verifications_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

const smsAnswer = (r: { verificationId: string; phone: { phoneNumber: string; phoneCountryCode: string; isoCountryCode: string } }) => ({
  verificationUuid: r.verificationId,
  phoneNumber: r.phone.phoneNumber,
  phoneCountryCode: r.phone.phoneCountryCode,
  isoCountryCode: r.phone.isoCountryCode,
});

export function registerVerifications(router: ConnectRouter, deps: Deps): void {
  const linked = async (channel: "email" | "sms", req: { verificationUuid: string; verificationToken: string }, ctx: HandlerContext) => {
    const env = publicEnvironmentOf(ctx);
    const { tokens, user } = await verifications.linkWithCode(deps, env, endUserOf(ctx), channel, req.verificationUuid, req.verificationToken, clientMetaOf(ctx));
    // Linking adds a credential to a session that already passed its factors: the next view is always done.
    const { jwt, minifiedJwt, expiresAt, user: shown } = toSignIn(tokens, user);
    return { update: { jwt, minifiedJwt, expiresAt, user: shown, nextView: "done" } };
  };
  const signedIn = async (channel: "email" | "sms", req: { verificationUuid: string; verificationToken: string }, ctx: HandlerContext) => {
    const r = await verifications.signInWithCode(deps, publicEnvironmentOf(ctx), channel, req.verificationUuid, req.verificationToken, clientMetaOf(ctx));
    return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
  };
  router.service(SdkVerificationsService, {
    async createEmailVerification(req, ctx) {
      const r = await (verifications.createEmailVerification(deps, publicEnvironmentOf(ctx), req.email));
      return { verificationUuid: r.verificationId, email: r.email };
    },
    async retryEmailVerification(req, ctx) {
      const r = await (verifications.retryEmailVerification(deps, publicEnvironmentOf(ctx), req.verificationUuid, req.email));
      return { verificationUuid: r.verificationId, email: r.email };
    },
    signInWithEmailVerification: (req, ctx) => signedIn("email", req, ctx),
    verifyEmailVerification: (req, ctx) => linked("email", req, ctx),
    async createSmsVerification(req, ctx) {
      return smsAnswer(await (verifications.createSmsVerification(deps, publicEnvironmentOf(ctx), req)));
    },
    async retrySmsVerification(req, ctx) {
      return smsAnswer(await (verifications.retrySmsVerification(deps, publicEnvironmentOf(ctx), req.verificationUuid, req)));
    },
    signInWithSmsVerification: (req, ctx) => signedIn("sms", req, ctx),
    verifySmsVerification: (req, ctx) => linked("sms", req, ctx),
  });
}
