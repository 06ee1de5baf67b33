import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import { SdkSettingsService } from "../../gen/sigil/sdk_settings/v0/sdk_settings_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as sdk from "../../domain/sdk-settings/service.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toNetworkGroups, toProjectSettings, toSdkGlobalWalletSettings } from "./mappers.js";

export function registerSdkSettings(router: ConnectRouter, deps: Deps) {
  router.service(SdkSettingsService, {
    async getEnvironmentSettings(_req, ctx) {
      const view = await sdk.environmentView(deps, publicEnvironmentOf(ctx));
      return { settings: toProjectSettings(view, deps.config.publicUrl) };
    },
    // Reaching the handler means the process serves and the environment resolved (the tenancy
    // interceptor read it); dependencies' health is /healthz's business.
    async getHealthcheck(_req, ctx) {
      publicEnvironmentOf(ctx);
      return { status: "healthy" };
    },
    async prefetch(req) {
      sdk.checkPrefetch(req.chain, req.publicWalletAddress);
      return {};
    },
    async logSdkSettings(req, ctx) {
      const { environmentId } = publicEnvironmentOf(ctx);
      const report = (req.report ?? {}) as JsonObject;
      deps.log.info("sdk settings reported", { environmentId, ...sdk.summarizeSdkReport(report) });
      return {};
    },
    async getEmailProvider(req, ctx) {
      return { emailProvider: await sdk.emailProviderFor(deps, publicEnvironmentOf(ctx), req.email) };
    },
    async getGlobalWalletsSettings(_req, ctx) {
      return { settings: toSdkGlobalWalletSettings(await sdk.globalWalletSettings(deps, publicEnvironmentOf(ctx))) };
    },
    async scanUrl(req, ctx) {
      return { isMalicious: await sdk.scanUrl(deps, publicEnvironmentOf(ctx), req.url) };
    },
    async getNetworks(_req, ctx) {
      return { networks: toNetworkGroups(await sdk.environmentNetworks(deps, publicEnvironmentOf(ctx))) };
    },
  });
}
