import type { ConnectRouter } from "@connectrpc/connect";
import { CustomHostnamesService } from "../../gen/sigil/environments/v0/custom_hostnames_service_pb.js";
import { DeeplinkUrlsService } from "../../gen/sigil/environments/v0/deeplink_urls_service_pb.js";
import { ExchangeRatesService } from "../../gen/sigil/environments/v0/exchange_rates_service_pb.js";
import { OriginsService } from "../../gen/sigil/environments/v0/origins_service_pb.js";
import { SdkViewsService } from "../../gen/sigil/environments/v0/sdk_views_service_pb.js";
import { TestAccountsService } from "../../gen/sigil/environments/v0/test_accounts_service_pb.js";
import type { CustomHostnameRecord } from "../../db/repositories/custom-hostnames.js";
import type { DeeplinkUrlRecord } from "../../db/repositories/deeplink-urls.js";
import type { OriginRecord } from "../../db/repositories/origins.js";
import type { TestAccountRecord } from "../../db/repositories/test-accounts.js";
import * as hostnames from "../../domain/custom-hostnames/service.js";
import * as deeplinks from "../../domain/deeplinks/service.js";
import type { Deps } from "../../domain/deps.js";
import * as rates from "../../domain/exchange-rates/service.js";
import * as origins from "../../domain/origins/service.js";
import * as sdkViews from "../../domain/sdk-views/service.js";
import * as testAccount from "../../domain/test-account/service.js";
import { tokenCaller } from "../context.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

const toOrigin = (o: OriginRecord) => ({ id: o.id, origin: o.origin, projectEnvironmentId: o.environmentId, createdAt: ts(o.createdAt) });
const toDeeplinkUrl = (d: DeeplinkUrlRecord) => ({ id: d.id, url: d.url, projectEnvironmentId: d.environmentId, createdAt: ts(d.createdAt) });
const toSdkView = (v: sdkViews.SdkView) => ({
  type: v.type,
  sections: v.sections.map((s) => ({
    type: s.type,
    label: str(s.label),
    numOfItemsToDisplay: s.numOfItemsToDisplay ?? 0,
    defaultItem: str(s.defaultItem),
    alignment: str(s.alignment),
  })),
  customized: v.customized,
  updatedAt: ts(v.updatedAt),
});
const toTestAccount = (a: TestAccountRecord, code: string) => ({
  id: a.id,
  email: str(a.email),
  phone: str(a.phoneNumber),
  code,
  projectEnvironmentId: a.environmentId,
  createdAt: ts(a.createdAt),
});

export function registerEnvironmentSettings(router: ConnectRouter, deps: Deps) {
  const toHostname = (h: CustomHostnameRecord) => ({
    id: h.id,
    hostname: h.hostname,
    usage: h.usage,
    // The published client's CustomHostnameStatusEnum calls a failed verification "error".
    status: h.status === "failed" ? "error" : h.status,
    verificationRecords: hostnames.verificationRecords(h, deps.config.publicUrl).map((r) => ({ ...r, dnsRecordType: r.type })),
    projectEnvironmentId: h.environmentId,
    verifiedAt: ts(h.verifiedAt),
    createdAt: ts(h.createdAt),
  });

  router.service(OriginsService, {
    async listOrigins(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await origins.listOrigins(deps, access, pageOf(req));
      return { origins: items.map(toOrigin), count };
    },
    async createOrigin(req, ctx) {
      const access = environmentOf(ctx);
      return { origin: toOrigin(await origins.addOrigin(deps, access, req.origin)) };
    },
    async deleteOrigin(req, ctx) {
      const access = environmentOf(ctx);
      await origins.deleteOrigin(deps, access, req.originId);
      return {};
    },
  });

  router.service(DeeplinkUrlsService, {
    async listDeeplinkUrls(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await deeplinks.listDeeplinkUrls(deps, access, pageOf(req));
      return { deeplinkUrls: items.map(toDeeplinkUrl), count };
    },
    async createDeeplinkUrl(req, ctx) {
      const access = environmentOf(ctx);
      return { deeplinkUrl: toDeeplinkUrl(await deeplinks.addDeeplinkUrl(deps, access, req.url)) };
    },
    async deleteDeeplinkUrl(req, ctx) {
      const access = environmentOf(ctx);
      await deeplinks.deleteDeeplinkUrl(deps, access, req.deeplinkUrlId);
      return {};
    },
  });

  router.service(SdkViewsService, {
    async listSdkViews(req, ctx) {
      const access = environmentOf(ctx);
      const { offset, limit } = pageOf(req);
      const all = await sdkViews.listSdkViews(deps, access);
      return { sdkViews: all.slice(offset, offset + limit).map(toSdkView), count: all.length };
    },
    async getSdkView(req, ctx) {
      const access = environmentOf(ctx);
      return { sdkView: toSdkView(await sdkViews.getSdkView(deps, access, req.sdkViewType)) };
    },
    async updateSdkView(req, ctx) {
      const access = environmentOf(ctx);
      const sections = req.sections.map((s) => ({
        type: s.type,
        ...(s.label ? { label: s.label } : {}),
        ...(s.numOfItemsToDisplay ? { numOfItemsToDisplay: s.numOfItemsToDisplay } : {}),
        ...(s.defaultItem ? { defaultItem: s.defaultItem } : {}),
        ...(s.alignment ? { alignment: s.alignment } : {}),
      }));
      return { sdkView: toSdkView(await sdkViews.updateSdkView(deps, access, req.sdkViewType, sections)) };
    },
  });

  router.service(CustomHostnamesService, {
    async listCustomHostnames(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await hostnames.listCustomHostnames(deps, access, pageOf(req));
      return { customHostnames: items.map(toHostname), count };
    },
    async createCustomHostname(req, ctx) {
      const access = environmentOf(ctx);
      return { customHostname: toHostname(await hostnames.createCustomHostname(deps, access, req.hostname, (req.usage || undefined) as CustomHostnameRecord["usage"] | undefined)) };
    },
    async deleteCustomHostname(req, ctx) {
      const access = environmentOf(ctx);
      await hostnames.deleteCustomHostname(deps, access, req.customHostnameId);
      return {};
    },
  });

  router.service(TestAccountsService, {
    async getTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      const { account, otpCode } = await testAccount.getTestAccount(deps, access);
      return { testAccount: toTestAccount(account, otpCode) };
    },
    async createTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      const { account, otpCode } = await testAccount.createTestAccount(deps, access, {
        email: orNull(req.email),
        phoneNumber: orNull(req.phoneNumber),
      });
      return { testAccount: toTestAccount(account, otpCode) };
    },
    async deleteTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      await testAccount.deleteTestAccount(deps, access);
      return {};
    },
  });

  router.service(ExchangeRatesService, {
    async listExchangeRates(_req, ctx) {
      // Not environment-bound: any token (environment or member) with settings.read reads the same table.
      tokenCaller(ctx);
      const list = await rates.listExchangeRates(deps);
      // The stored decimal string becomes the client's number (a double holds the configured precision).
      return {
        exchangeRates: list.map((r) => ({
          name: r.name,
          symbol: r.symbol,
          type: r.type,
          code: r.currency,
          value: Number(r.rate),
          source: r.source,
          updatedAt: ts(r.updatedAt),
        })),
      };
    },
  });
}
