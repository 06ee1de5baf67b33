import type { ConnectRouter } from "@connectrpc/connect";
import type { PasskeyRecord } from "../../db/repositories/passkeys.js";
import type { Deps } from "../../domain/deps.js";
import type { MfaCaller } from "../../domain/mfa/caller.js";
import { deleteDevice, getDevice, listDevices, listMethods, updateDevice } from "../../domain/mfa/devices.js";
import { authenticateEmail } from "../../domain/mfa/email.js";
import type { passSecondFactor } from "../../domain/mfa/pass.js";
import { authenticateRecovery, renewRecoveryCodes, showRecoveryCodes } from "../../domain/mfa/recovery.js";
import { authenticateTotp, registerTotpDevice, verifyTotpRegistration } from "../../domain/mfa/totp-devices.js";
import { SdkMfaService } from "../../gen/sigil/mfa/v0/mfa_service_pb.js";
import type { CreateMfaToken } from "../../gen/sigil/sessions/v0/sessions_pb.js";
import { MFA_TOKEN_HEADER, clientMetaOf, endUserOf } from "../context.js";
import { ts } from "../mappers.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toMfaDevice } from "../users/mappers.js";

type Ctx = Parameters<typeof clientMetaOf>[0];


const callerOf = (ctx: Ctx): MfaCaller => ({ env: publicEnvironmentOf(ctx), principal: endUserOf(ctx), meta: clientMetaOf(ctx) });

const mfaTokenRequest = (m: CreateMfaToken | undefined) => (m ? { singleUse: m.singleUse } : undefined);

/** A passed second factor as the client's VerifyResponse: the session's new tokens, and the mfaToken when asked. */
const passed = ({ tokens, user, mfaToken }: Awaited<ReturnType<typeof passSecondFactor>>) => ({ signIn: { ...toSignIn(tokens, user), mfaToken: mfaToken ?? "" } });

const toPasskey = (p: PasskeyRecord) => ({
  id: p.id,
  alias: p.alias ?? "",
  userAgent: p.userAgent ?? "",
  origin: p.origin,
  credentialId: p.credentialId,
  createdAt: ts(p.createdAt),
  updatedAt: ts(p.updatedAt),
});

export function registerMfa(router: ConnectRouter, deps: Deps): void {
  router.service(SdkMfaService, {
    async getUserMfaDevices(_req, ctx) {
      const devices = await listDevices(deps, callerOf(ctx));
      return { count: devices.length, devices: devices.map(toMfaDevice) };
    },
    async getUserMfaMethods(req, ctx) {
      const m = await listMethods(deps, callerOf(ctx), req.verifiedOnly);
      return { devices: m.devices.map(toMfaDevice), passkeys: m.passkeys.map(toPasskey), userHasVerifiedMfaMethods: m.userHasVerifiedMfaMethods };
    },
    async registerTotpMfaDevice(_req, ctx) {
      const d = await registerTotpDevice(deps, callerOf(ctx));
      return { id: d.id, type: "totp", secret: d.secret, uri: d.uri };
    },
    async registerTotpMfaDeviceVerify(req, ctx) {
      return { device: toMfaDevice(await verifyTotpRegistration(deps, callerOf(ctx), req.code)) };
    },
    async authMfaTotpDevice(req, ctx) {
      return passed(await authenticateTotp(deps, callerOf(ctx), { deviceId: req.id || undefined, code: req.code, createMfaToken: mfaTokenRequest(req.createMfaToken) }));
    },
    async authenticateMfaEmail(req, ctx) {
      return passed(
        await authenticateEmail(deps, callerOf(ctx), {
          verificationId: req.verificationUuid,
          code: req.verificationToken,
          createMfaToken: mfaTokenRequest(req.createMfaToken),
        }),
      );
    },
    async authMfaRecovery(req, ctx) {
      return passed(await authenticateRecovery(deps, callerOf(ctx), { code: req.code, createMfaToken: mfaTokenRequest(req.createMfaToken) }));
    },
    async getRecoveryCodes(_req, ctx) {
      const codes = await showRecoveryCodes(deps, callerOf(ctx));
      return { count: codes.length, recoveryCodes: codes };
    },
    async createNewRecoveryCodes(_req, ctx) {
      const codes = await renewRecoveryCodes(deps, callerOf(ctx));
      return { count: codes.length, recoveryCodes: codes };
    },
    async getMfaDevice(req, ctx) {
      return { device: toMfaDevice(await getDevice(deps, callerOf(ctx), req.mfaDeviceId)) };
    },
    async updateUserMfaDevice(req, ctx) {
      await updateDevice(deps, callerOf(ctx), req.mfaDeviceId, { default: req.default });
      return {};
    },
    async deleteMfaDevice(req, ctx) {
      await deleteDevice(deps, callerOf(ctx), req.mfaDeviceId, ctx.requestHeader.get(MFA_TOKEN_HEADER));
      return {};
    },
  });
}
