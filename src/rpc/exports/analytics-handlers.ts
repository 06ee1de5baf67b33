import type { ConnectRouter } from "@connectrpc/connect";
import { AnalyticsService } from "../../gen/sigil/analytics/v0/analytics_service_pb.js";
import * as analytics from "../../domain/analytics/service.js";
import * as visitors from "../../domain/analytics/visitors.js";
import type { Deps } from "../../domain/deps.js";
import { environmentAccess } from "../../domain/tenancy/access.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";

export function registerAnalytics(router: ConnectRouter, deps: Deps) {
  router.service(AnalyticsService, {
    async getAnalyticsOverview(req, ctx) {
      return analytics.overview(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async getAnalyticsTopline(req, ctx) {
      return analytics.topline(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async getAnalyticsEngagement(req, ctx) {
      return analytics.engagement(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async getVisitAnalytics(req, ctx) {
      return analytics.visits(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async getWalletsBreakdown(req, ctx) {
      return analytics.walletsByChainAndProvider(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async getAnalyticsWallets(req, ctx) {
      return analytics.walletsByName(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
    async listVisitors(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { rows, count } = await visitors.walletVisitors(deps, access, { ...pageOf(req), filter: req.filter, orderBy: req.orderBy });
      return {
        visitors: rows.map((v) => ({ ...v, createdAt: ts(v.createdAt), projectEnvironmentId: access.environmentId })),
        count,
      };
    },
    async getVisitorsCount(req, ctx) {
      return analytics.visitorsCount(deps, await environmentAccess(deps, ctx, req.environmentId), req);
    },
  });
}
