import type { ConnectRouter } from "@connectrpc/connect";
import { GlobalWalletAccessControlService } from "../../gen/sigil/global_wallet/v0/access_control_service_pb.js";
import { GlobalWalletService } from "../../gen/sigil/global_wallet/v0/global_wallet_service_pb.js";
import type { AccessControlRecord, AccessDomainRecord, AccessMode, DomainType } from "../../db/repositories/global-wallet-access.js";
import type { GlobalWalletSettingsRecord } from "../../db/repositories/global-wallet.js";
import type { ConnectionStatus } from "../../db/repositories/global-wallet-connections.js";
import type { Deps } from "../../domain/deps.js";
import * as accessControl from "../../domain/global-wallet/access-control.js";
import * as connections from "../../domain/global-wallet/connections.js";
import * as settings from "../../domain/global-wallet/settings.js";
import { type EnvironmentAccess } from "../../domain/tenancy/access.js";
import { badRequest } from "../../errors.js";
import { orNull, str, ts } from "../mappers.js";
import { MAX_LIMIT, pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";
import { toConnection } from "./mappers.js";

function toSettings(s: GlobalWalletSettingsRecord) {
  return {
    id: s.id,
    environmentId: s.environmentId,
    walletName: s.walletName,
    walletIconUrl: str(s.walletIconUrl),
    popupPageTitle: str(s.popupPageTitle),
    customCssUrl: str(s.customCssUrl),
    termsUrl: str(s.termsUrl),
    termsOfServiceUrl: str(s.termsUrl),
    privacyPolicyUrl: str(s.privacyPolicyUrl),
    enabledChains: s.enabledChains,
    enabledAt: ts(s.enabledAt),
    createdAt: ts(s.createdAt),
    updatedAt: ts(s.updatedAt),
  };
}

const toDomain = (d: AccessDomainRecord) => ({ id: d.id, domain: d.domain, type: d.type, createdAt: ts(d.createdAt) });

function toAccessControl(a: AccessControlRecord, domains: AccessDomainRecord[]) {
  return {
    id: a.id,
    environmentId: a.environmentId,
    projectEnvironmentId: a.environmentId,
    mode: a.mode,
    type: accessControl.listedType(a.mode),
    enabledAt: ts(a.enabledAt),
    createdAt: ts(a.createdAt),
    updatedAt: ts(a.updatedAt),
    domains: domains.map(toDomain),
  };
}

/** The mode from either request form: mode (allowList, blockList) or the published client's type (allow, block). */
function modeOf(req: { mode: string; type: string }): AccessMode {
  if (req.mode) return req.mode as AccessMode;
  if (req.type) return req.type === "allow" ? "allowList" : "blockList";
  throw badRequest("validation_error", "invalid request: type is required (or mode)", { errors: [{ field: "type", message: "is required (or mode)" }] });
}

/** optional string on the wire -> undefined (keep), null (cleared by ""), or the value. */
const change = (v: string | undefined) => (v === undefined ? undefined : orNull(v));

export function registerGlobalWallet(router: ConnectRouter, deps: Deps) {
  const view = (s: GlobalWalletSettingsRecord) => ({ settings: toSettings(s) });
  router.service(GlobalWalletService, {
    async getGlobalWalletSettings(req, ctx) {
      const access = environmentOf(ctx);
      return view(await settings.getSettings(deps, access));
    },
    async createGlobalWalletSettings(req, ctx) {
      const access = environmentOf(ctx);
      return view(
        await settings.createSettings(deps, access, {
          walletName: req.walletName,
          walletIconUrl: orNull(req.walletIconUrl),
          popupPageTitle: orNull(req.popupPageTitle),
          customCssUrl: orNull(req.customCssUrl),
          termsUrl: orNull(req.termsUrl || req.termsOfServiceUrl),
          privacyPolicyUrl: orNull(req.privacyPolicyUrl),
          enabledChains: req.enabledChains,
        }),
      );
    },
    async updateGlobalWalletSettings(req, ctx) {
      const access = environmentOf(ctx);
      return view(
        await settings.updateSettings(deps, access, {
          walletName: req.walletName,
          walletIconUrl: change(req.walletIconUrl),
          popupPageTitle: change(req.popupPageTitle),
          customCssUrl: change(req.customCssUrl),
          termsUrl: change(req.termsUrl ?? req.termsOfServiceUrl),
          privacyPolicyUrl: change(req.privacyPolicyUrl),
          enabledChains: req.enabledChains.length > 0 ? req.enabledChains : undefined,
        }),
      );
    },
    async enableGlobalWallet(req, ctx) {
      const access = environmentOf(ctx);
      return view(await settings.setGlobalWalletEnabled(deps, access, true));
    },
    async listGlobalWalletConnections(req, ctx) {
      const access = environmentOf(ctx);
      const filter = { userId: req.userId || undefined, status: (req.status || undefined) as ConnectionStatus | undefined };
      const list = await connections.listConnections(deps, access, filter, pageOf(req));
      return { connections: list.map(toConnection) };
    },
    async disableGlobalWallet(req, ctx) {
      const access = environmentOf(ctx);
      return view(await settings.setGlobalWalletEnabled(deps, access, false));
    },
  });

  // Answers of the mutations carry the access control with its domains (as many as a list page may hold).
  const controlView = async (access: EnvironmentAccess, a: AccessControlRecord) => {
    const { domains } = await accessControl.withDomains(deps, access, a, MAX_LIMIT);
    return { accessControl: toAccessControl(a, domains) };
  };
  router.service(GlobalWalletAccessControlService, {
    async listGlobalWalletAccessControlDomains(req, ctx) {
      const access = environmentOf(ctx);
      const page = pageOf(req);
      const { control, domains, count } = await accessControl.getAccessControlWithDomains(deps, access, page);
      return { accessControl: toAccessControl(control, domains), domains: domains.map(toDomain), count };
    },
    async createGlobalWalletAccessControl(req, ctx) {
      const access = environmentOf(ctx);
      return controlView(access, await accessControl.createAccessControl(deps, access, modeOf(req)));
    },
    async updateGlobalWalletAccessControl(req, ctx) {
      const access = environmentOf(ctx);
      return controlView(access, await accessControl.updateAccessControl(deps, access, modeOf(req)));
    },
    async enableGlobalWalletAccessControl(req, ctx) {
      const access = environmentOf(ctx);
      return controlView(access, await accessControl.setAccessControlEnabled(deps, access, true));
    },
    async disableGlobalWalletAccessControl(req, ctx) {
      const access = environmentOf(ctx);
      return controlView(access, await accessControl.setAccessControlEnabled(deps, access, false));
    },
    async addGlobalWalletAccessControlDomain(req, ctx) {
      const access = environmentOf(ctx);
      return { domain: toDomain(await accessControl.addDomain(deps, access, { domain: req.domain, type: (req.type || undefined) as DomainType | undefined })) };
    },
    async deleteGlobalWalletAccessControlDomain(req, ctx) {
      const access = environmentOf(ctx);
      await accessControl.deleteDomain(deps, access, req.globalWalletAccessControlDomainId);
      return {};
    },
  });
}
