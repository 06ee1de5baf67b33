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
  "AnalyticsApi.getWalletsBreakdown": async ({ api, rest, tenant }) => {
    // Setup: a wallet created in the range, so the bare array has an element to check.
    const env = `/environments/${tenant.environmentId}`;
    const { user } = await rest("POST", `${env}/users`, { email: `breakdown-${Date.now()}@example.com` });
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    await rest("POST", `${env}/users/${user.id}/wallets`, { publicWalletAddress: address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" });
    const { start, end } = range();
    const breakdown = await api(AnalyticsApi).getWalletsBreakdown({ environmentId: tenant.environmentId, startDate: start, endDate: end });
    if (!Array.isArray(breakdown) || breakdown.length === 0) throw new Error(`expected a non-empty array, got ${JSON.stringify(breakdown)}`);
    return breakdown;
  },
};
