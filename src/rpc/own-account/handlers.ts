import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import { OwnAccountService } from "../../gen/sigil/own_account/v0/own_account_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as own from "../../domain/own-account/service.js";
import { endUserOf, requestIdKey } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toUserView } from "../users/mappers.js";

type Ctx = Parameters<typeof endUserOf>[0] & Parameters<typeof publicEnvironmentOf>[0];

const callerOf = (ctx: Ctx): own.Caller => ({ env: publicEnvironmentOf(ctx), principal: endUserOf(ctx), requestId: ctx.values.get(requestIdKey) });

export function registerOwnAccount(router: ConnectRouter, deps: Deps) {
  router.service(OwnAccountService, {
    async getAuthenticatedUser(_req, ctx) {
      const caller = callerOf(ctx);
      const view = await own.getOwnUser(deps, caller);
      return { user: { ...toUserView(view), sessionId: caller.principal.sessionId, scope: caller.principal.scope } };
    },
    async updateSelf(req, ctx) {
      const { tokens, user, nextView, verification } = await (own.updateSelf(deps, callerOf(ctx), {
        email: req.email,
        phoneNumber: req.phoneNumber,
        alias: req.alias,
        firstName: req.firstName,
        lastName: req.lastName,
        username: req.username,
        jobTitle: req.jobTitle,
        country: req.country,
        team: req.team,
        tShirtSize: req.tShirtSize,
        policiesConsent: req.policiesConsent,
        metadata: req.metadata as JsonObject | undefined,
        mfaBackupCodeAcknowledgement: req.mfaBackupCodeAcknowledgement as "complete" | undefined,
      }));
      const { jwt, minifiedJwt, expiresAt, user: sdkUser } = toSignIn(tokens, user);
      const update = {
        jwt,
        minifiedJwt,
        expiresAt,
        user: sdkUser,
        nextView,
        emailVerification: verification?.channel === "email" ? { verificationUuid: verification.verificationId, email: verification.email } : undefined,
        smsVerification:
          verification?.channel === "sms"
            ? {
                verificationUuid: verification.verificationId,
                phoneNumber: verification.phone.phoneNumber,
                phoneCountryCode: verification.phone.phoneCountryCode,
                isoCountryCode: verification.phone.isoCountryCode,
              }
            : undefined,
      };
      return { update };
    },
    async hardDeleteUser(_req, ctx) {
      await own.hardDeleteSelf(deps, callerOf(ctx));
      return {};
    },
    async getUserFieldsCheck(req, ctx) {
      // The validation interceptor requires filter, its field and its value.
      const { field, value } = req.filter!;
      return { field, value, available: await own.isFieldValueAvailable(deps, callerOf(ctx), field, value) };
    },
    async selectUserWallet(req, ctx) {
      const { tokens, user } = await own.selectWallet(deps, callerOf(ctx), req.walletId);
      return { signIn: toSignIn(tokens, user) };
    },
  });
}
