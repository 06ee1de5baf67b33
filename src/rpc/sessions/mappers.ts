import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SignInSchema } from "../../gen/sigil/sessions/v0/sessions_pb.js";
import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import type { SessionTokens } from "../../domain/sessions/service.js";
import { toUser } from "../users/mappers.js";

/**
 * The published client's VerifyResponse: the session's tokens and the user (SdkUser) with the session's
 * id and scope, and newUser when this sign-in created them.
 */
export function toSignIn(tokens: SessionTokens, user: SignedInUserRecord, opts: { newUser?: boolean; mfaToken?: string } = {}): MessageInitShape<typeof SignInSchema> {
  return {
    mfaToken: opts.mfaToken ?? "",
    jwt: tokens.jwt,
    minifiedJwt: tokens.minifiedJwt,
    expiresAt: tokens.expiresAt,
    user: {
      ...toUser(user),
      sessionId: tokens.sessionId,
      scope: tokens.scope,
      newUser: opts.newUser ?? false,
      lastVerifiedCredentialId: user.user.lastVerifiedCredentialId ?? "",
    },
  };
}
