import type { ConnectRouter } from "@connectrpc/connect";
import { AnalyticsService, SdkVisitsService } from "../../gen/sigil/analytics/v0/analytics_service_pb.js";
import * as analytics from "../../domain/analytics/service.js";
import * as visitors from "../../domain/analytics/visitors.js";
import { recordWalletVisit } from "../../domain/analytics/visits.js";
import type { Deps } from "../../domain/deps.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf, publicEnvironmentOf } from "../tenant-context.js";

export function registerAnalytics(router: ConnectRouter, deps: Deps) {
  router.service(AnalyticsService, {
    async getAnalyticsOverview(req, ctx) {
      return analytics.overview(deps, environmentOf(ctx), req);
    },
    async getAnalyticsTopline(req, ctx) {
      return analytics.topline(deps, environmentOf(ctx), req);
    },
    async getAnalyticsEngagement(req, ctx) {
      return analytics.engagement(deps, environmentOf(ctx), req);
    },
    async getVisitAnalytics(req, ctx) {
      return analytics.visits(deps, environmentOf(ctx), req);
    },
    async getWalletsBreakdown(req, ctx) {
      return analytics.walletsByChainAndProvider(deps, environmentOf(ctx), req);
    },
    async getAnalyticsWallets(req, ctx) {
      return analytics.walletsByName(deps, environmentOf(ctx), req);
    },
    async listVisitors(req, ctx) {
      const access = environmentOf(ctx);
      const { rows, count } = await visitors.walletVisitors(deps, access, { ...pageOf(req), filter: req.filter, orderBy: req.orderBy });
      return {
        visitors: rows.map((v) => ({ ...v, createdAt: ts(v.createdAt), projectEnvironmentId: access.environmentId })),
        count,
      };
    },
    async getVisitorsCount(req, ctx) {
      return analytics.visitorsCount(deps, environmentOf(ctx), req);
    },
  });
  router.service(SdkVisitsService, {
    async createVisit(req, ctx) {
      await recordWalletVisit(deps, publicEnvironmentOf(ctx), { chain: req.chain, address: req.address });
      return {};
    },
  });
}
