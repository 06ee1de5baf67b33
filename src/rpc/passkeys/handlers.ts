import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { authenticateWithMfaPasskey, mfaPasskeyRegistrationOptions, registerMfaPasskey } from "../../domain/passkeys/mfa.js";
import {
  deletePasskey,
  listPasskeys,
  passkeyAuthenticationOptions,
  passkeyRegistrationOptions,
  registerPasskey,
  renamePasskey,
} from "../../domain/passkeys/service.js";
import { passkeySignInOptions, signInWithPasskey } from "../../domain/passkeys/sign-in.js";
import { SdkPasskeysService } from "../../gen/sigil/passkeys/v0/passkeys_service_pb.js";
import { clientMetaOf, endUserOf, requestIdKey } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { assertionOf, attestationOf, mfaTokenAsked, toAuthenticationOptions, toPasskey, toRegistrationOptions } from "./mappers.js";

/** The page the ceremony runs on (the relying party is derived from it and checked in the domain). */
const originOf = (ctx: { requestHeader: Headers }) => ctx.requestHeader.get("origin");

export function registerPasskeys(router: ConnectRouter, deps: Deps): void {
  router.service(SdkPasskeysService, {
    async getPasskeyRegistrationOptions(_req, ctx) {
      return { options: toRegistrationOptions(await passkeyRegistrationOptions(deps, publicEnvironmentOf(ctx), endUserOf(ctx), originOf(ctx))) };
    },
    async registerPasskey(req, ctx) {
      const r = await registerPasskey(deps, publicEnvironmentOf(ctx), endUserOf(ctx), attestationOf(req.credential), originOf(ctx), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async getPasskeyAuthenticationSigninOptions(req, ctx) {
      const options = await passkeySignInOptions(deps, publicEnvironmentOf(ctx), originOf(ctx), req.relatedOriginRpId || undefined);
      return { options: toAuthenticationOptions(options) };
    },
    async signinWithPasskey(req, ctx) {
      const r = await signInWithPasskey(deps, publicEnvironmentOf(ctx), assertionOf(req.assertion), originOf(ctx), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async getPasskeyAuthenticationOptions(req, ctx) {
      const options = await passkeyAuthenticationOptions(deps, publicEnvironmentOf(ctx), endUserOf(ctx), originOf(ctx), req.relatedOriginRpId || undefined);
      return { options: toAuthenticationOptions(options) };
    },
    async getUserPasskeys(_req, ctx) {
      const passkeys = await listPasskeys(deps, publicEnvironmentOf(ctx), endUserOf(ctx));
      return { passkeys: passkeys.map(toPasskey), count: passkeys.length };
    },
    async updatePasskey(req, ctx) {
      const p = await renamePasskey(deps, publicEnvironmentOf(ctx), endUserOf(ctx), req.id, req.alias, ctx.values.get(requestIdKey));
      return { passkey: toPasskey(p) };
    },
    async deletePasskey(req, ctx) {
      await deletePasskey(deps, publicEnvironmentOf(ctx), endUserOf(ctx), req.passkeyId, ctx.values.get(requestIdKey));
      return {};
    },
    async registerPasskeyMfaDevice(_req, ctx) {
      const r = await mfaPasskeyRegistrationOptions(deps, publicEnvironmentOf(ctx), endUserOf(ctx), originOf(ctx));
      return { id: r.deviceId, type: "passkey", registration: toRegistrationOptions(r.registration) };
    },
    async registerPasskeyMfaDeviceVerify(req, ctx) {
      const input = { deviceId: req.id, response: attestationOf(req.attestation) };
      const r = await registerMfaPasskey(deps, publicEnvironmentOf(ctx), endUserOf(ctx), input, originOf(ctx), clientMetaOf(ctx));
      return { signIn: { ...toSignIn(r.tokens, r.user), mfaToken: r.mfaToken ?? "" } };
    },
    async authenticateMfaPasskeyDevice(req, ctx) {
      const r = await authenticateWithMfaPasskey(deps, publicEnvironmentOf(ctx), endUserOf(ctx), assertionOf(req.assertion), originOf(ctx), clientMetaOf(ctx), mfaTokenAsked(req.assertion));
      return { signIn: { ...toSignIn(r.tokens, r.user), mfaToken: r.mfaToken ?? "" } };
    },
  });
}
