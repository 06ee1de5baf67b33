import type { ConnectRouter } from "@connectrpc/connect";
import { GlobalWalletAccessControlService } from "../../gen/sigil/global_wallet/v0/access_control_service_pb.js";
import { GlobalWalletService } from "../../gen/sigil/global_wallet/v0/global_wallet_service_pb.js";
import type { AccessControlRecord, AccessDomainRecord, AccessMode, DomainType } from "../../db/repositories/global-wallet-access.js";
import type { GlobalWalletSettingsRecord } from "../../db/repositories/global-wallet.js";
import type { Deps } from "../../domain/deps.js";
import * as accessControl from "../../domain/global-wallet/access-control.js";
import * as settings from "../../domain/global-wallet/settings.js";
import { environmentAccess } from "../../domain/tenancy/access.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";

function toSettings(s: GlobalWalletSettingsRecord) {
  return {
    id: s.id,
    environmentId: s.environmentId,
    walletName: s.walletName,
    walletIconUrl: str(s.walletIconUrl),
    popupPageTitle: str(s.popupPageTitle),
    customCssUrl: str(s.customCssUrl),
    termsUrl: str(s.termsUrl),
    privacyPolicyUrl: str(s.privacyPolicyUrl),
    enabledChains: s.enabledChains,
    enabledAt: ts(s.enabledAt),
    createdAt: ts(s.createdAt),
    updatedAt: ts(s.updatedAt),
  };
}

function toAccessControl(a: AccessControlRecord) {
  return { id: a.id, environmentId: a.environmentId, mode: a.mode, enabledAt: ts(a.enabledAt), createdAt: ts(a.createdAt), updatedAt: ts(a.updatedAt) };
}

const toDomain = (d: AccessDomainRecord) => ({ id: d.id, domain: d.domain, type: d.type, createdAt: ts(d.createdAt) });

/** optional string on the wire -> undefined (keep), null (cleared by ""), or the value. */
const change = (v: string | undefined) => (v === undefined ? undefined : orNull(v));

export function registerGlobalWallet(router: ConnectRouter, deps: Deps) {
  const view = (s: GlobalWalletSettingsRecord) => ({ settings: toSettings(s) });
  router.service(GlobalWalletService, {
    async getGlobalWalletSettings(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return view(await settings.getSettings(deps, access));
    },
    async createGlobalWalletSettings(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return view(
        await settings.createSettings(deps, access, {
          walletName: req.walletName,
          walletIconUrl: orNull(req.walletIconUrl),
          popupPageTitle: orNull(req.popupPageTitle),
          customCssUrl: orNull(req.customCssUrl),
          termsUrl: orNull(req.termsUrl),
          privacyPolicyUrl: orNull(req.privacyPolicyUrl),
          enabledChains: req.enabledChains,
        }),
      );
    },
    async updateGlobalWalletSettings(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return view(
        await settings.updateSettings(deps, access, {
          walletName: req.walletName,
          walletIconUrl: change(req.walletIconUrl),
          popupPageTitle: change(req.popupPageTitle),
          customCssUrl: change(req.customCssUrl),
          termsUrl: change(req.termsUrl),
          privacyPolicyUrl: change(req.privacyPolicyUrl),
          enabledChains: req.enabledChains.length > 0 ? req.enabledChains : undefined,
        }),
      );
    },
    async enableGlobalWallet(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return view(await settings.setGlobalWalletEnabled(deps, access, true));
    },
    async disableGlobalWallet(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return view(await settings.setGlobalWalletEnabled(deps, access, false));
    },
  });

  const controlView = (a: AccessControlRecord) => ({ accessControl: toAccessControl(a) });
  router.service(GlobalWalletAccessControlService, {
    async listGlobalWalletAccessControlDomains(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const page = pageOf(req);
      const { control, domains, count } = await accessControl.getAccessControlWithDomains(deps, access, page);
      return { accessControl: toAccessControl(control), domains: domains.map(toDomain), count };
    },
    async createGlobalWalletAccessControl(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return controlView(await accessControl.createAccessControl(deps, access, req.mode as AccessMode));
    },
    async updateGlobalWalletAccessControl(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return controlView(await accessControl.updateAccessControl(deps, access, req.mode as AccessMode));
    },
    async enableGlobalWalletAccessControl(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return controlView(await accessControl.setAccessControlEnabled(deps, access, true));
    },
    async disableGlobalWalletAccessControl(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return controlView(await accessControl.setAccessControlEnabled(deps, access, false));
    },
    async addGlobalWalletAccessControlDomain(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { domain: toDomain(await accessControl.addDomain(deps, access, { domain: req.domain, type: req.type as DomainType })) };
    },
    async deleteGlobalWalletAccessControlDomain(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      await accessControl.deleteDomain(deps, access, req.globalWalletAccessControlDomainId);
      return {};
    },
  });
}
