import * as analytics from "../../db/repositories/analytics.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { dayRange } from "./range.js";

export interface RangeQuery {
  startDate?: string;
  endDate?: string;
}

const rangeOf = (q: RangeQuery) => dayRange(q.startDate || undefined, q.endDate || undefined);
const shown = (r: analytics.DayRange) => ({ startDate: r.startDate, endDate: r.endDate });

export async function overview(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  return { range: shown(range), ...(await analytics.overviewCounts(deps.db, access.environmentId, range)) };
}

export async function topline(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const days = await analytics.toplineDays(deps.db, access.environmentId, range);
  const sum = (k: "newUsers" | "newWallets" | "sessions") => days.reduce((n, d) => n + d[k], 0);
  return { range: shown(range), days, newUsers: sum("newUsers"), newWallets: sum("newWallets"), sessions: sum("sessions") };
}

export async function engagement(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const [days, totals] = await Promise.all([
    analytics.engagementDays(deps.db, access.environmentId, range),
    analytics.engagementTotals(deps.db, access.environmentId, range),
  ]);
  return { range: shown(range), days, ...totals };
}

export async function visits(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const [days, totals] = await Promise.all([
    analytics.visitDays(deps.db, access.environmentId, range),
    analytics.visitTotals(deps.db, access.environmentId, range),
  ]);
  return { range: shown(range), days, ...totals };
}

export async function visitorsCount(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const totals = await analytics.visitTotals(deps.db, access.environmentId, range);
  return { range: shown(range), count: totals.uniqueVisitors };
}

/** Sums counts per key, largest first (ties by key) so answers are stable. */
function countBy<T>(rows: readonly (T & { count: number })[], key: (r: T) => string) {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + r.count);
  return [...m.entries()].map(([k, count]) => ({ key: k, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** Wallets created in the range by chain, by provider and by both. */
export async function walletsByChainAndProvider(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const groups = await analytics.walletGroups(deps.db, access.environmentId, range);
  const pairs = countBy(groups, (g) => `${g.chain}\u0000${g.provider}`).map(({ key, count }) => {
    const [chain, provider] = key.split("\u0000");
    return { chain: chain!, provider: provider!, count };
  });
  return {
    range: shown(range),
    total: groups.reduce((n, g) => n + g.count, 0),
    byChain: countBy(groups, (g) => g.chain),
    byProvider: countBy(groups, (g) => g.provider),
    byChainAndProvider: pairs,
  };
}

/** Wallets created in the range by connector (wallet name), provider, and embedded vs external. */
export async function walletsByConnectorAndKind(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const groups = await analytics.walletGroups(deps.db, access.environmentId, range);
  const embedded = groups.filter((g) => g.provider === "embeddedWallet").reduce((n, g) => n + g.count, 0);
  const total = groups.reduce((n, g) => n + g.count, 0);
  return {
    range: shown(range),
    total,
    byConnector: countBy(groups, (g) => g.name),
    byProvider: countBy(groups, (g) => g.provider),
    embedded,
    external: total - embedded,
  };
}
