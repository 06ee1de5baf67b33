import { badRequest } from "../../errors.js";
import * as analytics from "../../db/repositories/analytics.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { chainFamilyOf, isChain } from "../wallets/addresses.js";
import { dayRange } from "./range.js";

export interface RangeQuery {
  startDate?: string;
  endDate?: string;
  /** The published client's names for startDate and endDate (overview, topline, engagement, walletsBreakdown). */
  start?: string;
  end?: string;
}

/** One of two spellings of a parameter; both only when they say the same. */
function either(q: RangeQuery, a: keyof RangeQuery, b: keyof RangeQuery): { value: string | undefined; field: string } {
  const va = q[a] || undefined;
  const vb = q[b] || undefined;
  if (va && vb && va !== vb) throw badRequest("invalid_date_range", `${a} and ${b} differ; send one of them`, { field: a });
  return va ? { value: va, field: a } : { value: vb, field: vb ? b : a };
}

function rangeOf(q: RangeQuery) {
  const start = either(q, "start", "startDate");
  const end = either(q, "end", "endDate");
  return dayRange(start.value, end.value, new Date(), { start: start.field, end: end.field });
}
const shown = (r: analytics.DayRange) => ({ startDate: r.startDate, endDate: r.endDate });
/** A percentage with two decimals; null when there is nothing to divide by. */
const pct = (part: number, whole: number) => (whole === 0 ? null : Math.round((10_000 * part) / whole) / 100);

/** Active users per period, and sessions per period by sign-in method and by operating system. */
export async function overview(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery & { granularity?: string }) {
  const range = rangeOf(q);
  // The proto allows only day, week and month; empty means day.
  const g = (q.granularity || "day") as analytics.Granularity;
  const [activeUsers, byLoginMethod, byOperatingSystem] = await Promise.all([
    analytics.activeUsersSeries(deps.db, access.environmentId, range, g),
    analytics.sessionsByDimension(deps.db, access.environmentId, range, g, "loginMethod"),
    analytics.sessionsByDimension(deps.db, access.environmentId, range, g, "operatingSystem"),
  ]);
  return { range: shown(range), activeUsers, sessions: { byLoginMethod, byOperatingSystem } };
}

/** Sessions, live users and live wallets: all time and created in the range. */
export async function topline(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  return { range: shown(range), ...(await analytics.toplineCounts(deps.db, access.environmentId, range)) };
}

/** Active days per user-week, weekly cohort retention (all and new users) and the weekday x hour heatmap. */
export async function engagement(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const [weekly, cells, heatmap] = await Promise.all([
    analytics.activeDaysPerUserWeek(deps.db, access.environmentId, range),
    analytics.retentionCells(deps.db, access.environmentId, range),
    analytics.sessionsHeatmap(deps.db, access.environmentId, range),
  ]);
  const userWeeks = weekly.reduce((n, w) => n + w.nUserWeeks, 0);
  const point = (c: analytics.RetentionCellRow, size: number, returning: number) => ({
    cohortWeek: c.cohortWeek,
    returningWeek: c.returningWeek,
    ...(size > 0 ? { retentionPct: pct(returning, size)! } : {}),
  });
  return {
    range: shown(range),
    activeWeeklyDays: weekly.map((w) => ({ ...w, pctUserWeeks: pct(w.nUserWeeks, userWeeks) ?? 0 })),
    retention: {
      allUsers: cells.map((c) => point(c, c.allUsers, c.allUsersReturning)),
      newUsers: cells.map((c) => point(c, c.newUsers, c.newUsersReturning)),
    },
    sessionsHeatmap: heatmap,
  };
}

export async function visits(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const range = rangeOf(q);
  const [days, totals] = await Promise.all([
    analytics.visitDays(deps.db, access.environmentId, range),
    analytics.visitTotals(deps.db, access.environmentId, range),
  ]);
  return {
    range: shown(range),
    days,
    uniqueVisitors: totals.uniqueVisitors,
    visits: { totalUnique: totals.uniqueVisitors, sessions: days.map((d) => ({ date: d.date, count: d.visits, uniqueUsers: d.uniqueVisitors })) },
    summedSessionsCount: totals.visits,
    summedTotalUniqueCount: totals.uniqueVisitors,
  };
}

/**
 * The published client's visitor statistics: users (live ones; active: with a session) and visitors (distinct
 * visitor ids of the visits the SDK reported, signed in or not), each all time and distinct over the range,
 * which the client calls the past month (its request sends no range: the last 30 days).
 */
export async function visitorsCount(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery) {
  const { users, visitors } = await analytics.userAndVisitorCounts(deps.db, access.environmentId, rangeOf(q));
  const shape = (c: analytics.AllTimeAndDistinctInRange) => ({ count: c.allTime, uniquePastMonth: c.inRange });
  return { users: shape(users), visitors: shape(visitors) };
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

/** A chain filter: a chain name (any case) or a CAIP-2 chain id of a known family; null for all chains. */
function chainFilter(chain: string | undefined): string | null {
  if (!chain) return null;
  const family = chain.includes(":") ? chainFamilyOf(chain) : chain.toUpperCase();
  if (!isChain(family)) throw badRequest("invalid_chain", `${chain} is not a supported chain`, { field: "chain" });
  return family;
}

/** Live wallets per wallet name, all time and created in the range, most first (ties by name). */
export async function walletsByName(deps: Pick<Deps, "db">, access: EnvironmentAccess, q: RangeQuery & { chain?: string }) {
  const range = rangeOf(q);
  const rows = await analytics.walletsByName(deps.db, access.environmentId, range, chainFilter(q.chain));
  const ranked = (k: "allTime" | "inRange") =>
    rows
      .filter((r) => r[k] > 0)
      .sort((a, b) => b[k] - a[k] || a.name.localeCompare(b.name))
      .map((r) => ({ walletNameDisplay: r.name, nWallets: r[k] }));
  return { range: shown(range), breakdown: { allTime: ranked("allTime"), inRange: ranked("inRange") } };
}
