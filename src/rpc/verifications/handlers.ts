import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import type { ClientMeta } from "../../domain/sessions/service.js";
import * as verifications from "../../domain/verifications/service.js";
import { DomainError, toConnectError } from "../../errors.js";
import { SdkVerificationsService } from "../../gen/sigil/verifications/v0/verifications_service_pb.js";
import { clientAddress, endUserOf, requestIdKey } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** Where the call came from, kept on the session it opens. */
function metaOf(ctx: HandlerContext): ClientMeta {
  return { ipAddress: clientAddress(ctx) || null, userAgent: ctx.requestHeader.get("user-agent"), requestId: ctx.values.get(requestIdKey) };
}

/** The per-identifier send limit answers 429 with Retry-After (the seconds the domain computed). */
async function withRetryAfter<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof DomainError && err.kind === "rate_limited" && typeof err.payload?.retryAfterSeconds === "number")
      throw toConnectError(err, { "retry-after": String(err.payload.retryAfterSeconds) });
    throw err;
  }
}

const smsAnswer = (r: { verificationId: string; phone: { phoneNumber: string; phoneCountryCode: string; isoCountryCode: string } }) => ({
  verificationUuid: r.verificationId,
  phoneNumber: r.phone.phoneNumber,
  phoneCountryCode: r.phone.phoneCountryCode,
  isoCountryCode: r.phone.isoCountryCode,
});

export function registerVerifications(router: ConnectRouter, deps: Deps): void {
  const linked = async (channel: "email" | "sms", req: { verificationUuid: string; verificationToken: string }, ctx: HandlerContext) => {
    const env = publicEnvironmentOf(ctx);
    const { tokens, user } = await verifications.linkWithCode(deps, env, endUserOf(ctx), channel, req.verificationUuid, req.verificationToken, metaOf(ctx));
    // Nothing else is asked of the user after a verified address or number (MFA comes in a later issue).
    const { jwt, minifiedJwt, expiresAt, user: shown } = toSignIn(tokens, user);
    return { jwt, minifiedJwt, expiresAt, user: shown, nextView: "done" };
  };
  const signedIn = async (channel: "email" | "sms", req: { verificationUuid: string; verificationToken: string }, ctx: HandlerContext) => {
    const r = await verifications.signInWithCode(deps, publicEnvironmentOf(ctx), channel, req.verificationUuid, req.verificationToken, metaOf(ctx));
    return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
  };
  router.service(SdkVerificationsService, {
    async createEmailVerification(req, ctx) {
      const r = await withRetryAfter(verifications.createEmailVerification(deps, publicEnvironmentOf(ctx), req.email));
      return { verificationUuid: r.verificationId, email: r.email };
    },
    async retryEmailVerification(req, ctx) {
      const r = await withRetryAfter(verifications.retryEmailVerification(deps, publicEnvironmentOf(ctx), req.verificationUuid, req.email));
      return { verificationUuid: r.verificationId, email: r.email };
    },
    signInWithEmailVerification: (req, ctx) => signedIn("email", req, ctx),
    verifyEmailVerification: (req, ctx) => linked("email", req, ctx),
    async createSmsVerification(req, ctx) {
      return smsAnswer(await withRetryAfter(verifications.createSmsVerification(deps, publicEnvironmentOf(ctx), req)));
    },
    async retrySmsVerification(req, ctx) {
      return smsAnswer(await withRetryAfter(verifications.retrySmsVerification(deps, publicEnvironmentOf(ctx), req.verificationUuid, req)));
    },
    signInWithSmsVerification: (req, ctx) => signedIn("sms", req, ctx),
    verifySmsVerification: (req, ctx) => linked("sms", req, ctx),
  });
}
