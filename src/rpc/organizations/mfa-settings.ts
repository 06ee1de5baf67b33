import type { ConnectRouter } from "@connectrpc/connect";
import { MfaSettingsService } from "../../gen/sigil/organizations/v0/mfa_settings_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as mfa from "../../domain/organizations/mfa.js";
import { toMfaSetting } from "./mappers.js";
import { organizationOf } from "../tenant-context.js";

export function registerMfaSettings(router: ConnectRouter, deps: Deps) {
  router.service(MfaSettingsService, {
    async getOrganizationMfaSettings(req, ctx) {
      const access = organizationOf(ctx);
      const list = await mfa.getMfaSettings(deps, access.organizationId);
      return { mfaSettings: list.map(toMfaSetting), count: list.length };
    },
    async enableMfaDevice(req, ctx) {
      const access = organizationOf(ctx);
      return { mfaSetting: toMfaSetting(await mfa.setMfaDeviceEnabled(deps, access, req.mfaDeviceType, true)) };
    },
    async disableMfaDevice(req, ctx) {
      const access = organizationOf(ctx);
      return { mfaSetting: toMfaSetting(await mfa.setMfaDeviceEnabled(deps, access, req.mfaDeviceType, false)) };
    },
  });
}
