import { AnalyticsApi, GetAnalyticsOverviewGranularityEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

const day = 24 * 60 * 60 * 1000;
const range = () => ({ start: new Date(Date.now() - 30 * day).toISOString(), end: new Date().toISOString() });

/** AnalyticsApi: one scenario per operation, keyed `AnalyticsApi.<operation>`, run in this order. */
export const analyticsApi: Scenarios = {
  "AnalyticsApi.getAnalyticsOverview": ({ api, tenant }) =>
    api(AnalyticsApi).getAnalyticsOverview({ environmentId: tenant.environmentId, ...range(), granularity: GetAnalyticsOverviewGranularityEnum.Day }),
  "AnalyticsApi.getAnalyticsTopline": ({ api, tenant }) => api(AnalyticsApi).getAnalyticsTopline({ environmentId: tenant.environmentId, ...range() }),
  "AnalyticsApi.getAnalyticsEngagement": ({ api, tenant }) =>
    api(AnalyticsApi).getAnalyticsEngagement({ environmentId: tenant.environmentId, ...range() }),
  "AnalyticsApi.getAnalyticsWallets": ({ api, tenant }) =>
    api(AnalyticsApi).getAnalyticsWallets({ environmentId: tenant.environmentId, ...range(), chain: "EVM" }),
  "AnalyticsApi.getVisitAnalytics": ({ api, tenant }) => {
    const { start, end } = range();
    return api(AnalyticsApi).getVisitAnalytics({ environmentId: tenant.environmentId, startDate: start, endDate: end });
  },
  "AnalyticsApi.getWalletsBreakdown": ({ api, tenant }) => {
    const { start, end } = range();
    return api(AnalyticsApi).getWalletsBreakdown({ environmentId: tenant.environmentId, startDate: start, endDate: end });
  },
};
