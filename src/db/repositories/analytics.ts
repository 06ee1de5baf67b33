import type { Queryable } from "../db.js";

/**
 * Analytics read from stored rows with range scans of (environment_id, created_at) indexes. A range is whole
 * UTC days: `startDate`..`endDate` (YYYY-MM-DD, both included) for the zero-filled series that
 * generate_series builds, and the instants `from` (inclusive) .. `to` (exclusive) for the scans.
 */
export interface DayRange {
  startDate: string;
  endDate: string;
  from: Date;
  to: Date;
}

const DAYS = `days AS (SELECT d::date AS day FROM generate_series($2::date, $3::date, interval '1 day') d)`;
const UTC_DAY = (col: string) => `(${col} AT TIME ZONE 'UTC')::date`;
const params = (environmentId: string, r: DayRange) => [environmentId, r.startDate, r.endDate, r.from, r.to];

export interface OverviewCounts {
  totalUsers: number;
  newUsers: number;
  totalWallets: number;
  newWallets: number;
  sessions: number;
  activeUsers: number;
  visits: number;
  uniqueVisitors: number;
}

export async function overviewCounts(q: Queryable, environmentId: string, r: DayRange): Promise<OverviewCounts> {
  const row = await q.one(
    `SELECT
       (SELECT count(*) FROM users WHERE environment_id = $1 AND deleted_at IS NULL AND created_at < $5) AS total_users,
       (SELECT count(*) FROM users WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $4 AND created_at < $5) AS new_users,
       (SELECT count(*) FROM wallets WHERE environment_id = $1 AND deleted_at IS NULL AND created_at < $5) AS total_wallets,
       (SELECT count(*) FROM wallets WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $4 AND created_at < $5) AS new_wallets,
       (SELECT count(*) FROM sessions WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5) AS sessions,
       (SELECT count(DISTINCT user_id) FROM sessions WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5) AS active_users,
       (SELECT count(*) FROM visits WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5) AS visits,
       (SELECT count(DISTINCT visitor_id) FROM visits WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5) AS unique_visitors`,
    params(environmentId, r),
  );
  return {
    totalUsers: row.total_users,
    newUsers: row.new_users,
    totalWallets: row.total_wallets,
    newWallets: row.new_wallets,
    sessions: row.sessions,
    activeUsers: row.active_users,
    visits: row.visits,
    uniqueVisitors: row.unique_visitors,
  };
}

export interface ToplineDayRow {
  date: string;
  newUsers: number;
  newWallets: number;
  sessions: number;
}

export async function toplineDays(q: Queryable, environmentId: string, r: DayRange): Promise<ToplineDayRow[]> {
  const rows = await q.any(
    `WITH ${DAYS},
     u AS (SELECT ${UTC_DAY("created_at")} AS day, count(*) AS n FROM users
           WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $4 AND created_at < $5 GROUP BY 1),
     w AS (SELECT ${UTC_DAY("created_at")} AS day, count(*) AS n FROM wallets
           WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $4 AND created_at < $5 GROUP BY 1),
     s AS (SELECT ${UTC_DAY("created_at")} AS day, count(*) AS n FROM sessions
           WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5 GROUP BY 1)
     SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(u.n, 0) AS new_users, coalesce(w.n, 0) AS new_wallets,
            coalesce(s.n, 0) AS sessions
     FROM days LEFT JOIN u USING (day) LEFT JOIN w USING (day) LEFT JOIN s USING (day)
     ORDER BY days.day`,
    params(environmentId, r),
  );
  return rows.map((x) => ({ date: x.date, newUsers: x.new_users, newWallets: x.new_wallets, sessions: x.sessions }));
}

export interface EngagementDayRow {
  date: string;
  activeUsers: number;
  returningUsers: number;
  sessions: number;
}

/** Active users: distinct users with a session that day; returning: those created on an earlier day. */
export async function engagementDays(q: Queryable, environmentId: string, r: DayRange): Promise<EngagementDayRow[]> {
  const rows = await q.any(
    `WITH ${DAYS},
     a AS (SELECT ${UTC_DAY("s.created_at")} AS day, count(DISTINCT s.user_id) AS active,
                  count(DISTINCT s.user_id) FILTER (WHERE ${UTC_DAY("u.created_at")} < ${UTC_DAY("s.created_at")}) AS returning,
                  count(*) AS sessions
           FROM sessions s JOIN users u ON u.id = s.user_id AND u.environment_id = s.environment_id
           WHERE s.environment_id = $1 AND s.created_at >= $4 AND s.created_at < $5 GROUP BY 1)
     SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(a.active, 0) AS active, coalesce(a.returning, 0) AS returning,
            coalesce(a.sessions, 0) AS sessions
     FROM days LEFT JOIN a USING (day) ORDER BY days.day`,
    params(environmentId, r),
  );
  return rows.map((x) => ({ date: x.date, activeUsers: x.active, returningUsers: x.returning, sessions: x.sessions }));
}

/** Over the whole range: distinct active users, and those of them created before the range. */
export async function engagementTotals(q: Queryable, environmentId: string, r: DayRange): Promise<{ activeUsers: number; returningUsers: number }> {
  const row = await q.one(
    `SELECT count(DISTINCT s.user_id) AS active, count(DISTINCT s.user_id) FILTER (WHERE u.created_at < $2) AS returning
     FROM sessions s JOIN users u ON u.id = s.user_id AND u.environment_id = s.environment_id
     WHERE s.environment_id = $1 AND s.created_at >= $2 AND s.created_at < $3`,
    [environmentId, r.from, r.to],
  );
  return { activeUsers: row.active, returningUsers: row.returning };
}

export interface VisitDayRow {
  date: string;
  visits: number;
  uniqueVisitors: number;
}

export async function visitDays(q: Queryable, environmentId: string, r: DayRange): Promise<VisitDayRow[]> {
  const rows = await q.any(
    `WITH ${DAYS},
     v AS (SELECT ${UTC_DAY("created_at")} AS day, count(*) AS visits, count(DISTINCT visitor_id) AS visitors FROM visits
           WHERE environment_id = $1 AND created_at >= $4 AND created_at < $5 GROUP BY 1)
     SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(v.visits, 0) AS visits, coalesce(v.visitors, 0) AS visitors
     FROM days LEFT JOIN v USING (day) ORDER BY days.day`,
    params(environmentId, r),
  );
  return rows.map((x) => ({ date: x.date, visits: x.visits, uniqueVisitors: x.visitors }));
}

export async function visitTotals(q: Queryable, environmentId: string, r: DayRange): Promise<{ visits: number; uniqueVisitors: number }> {
  const row = await q.one(
    `SELECT count(*) AS visits, count(DISTINCT visitor_id) AS visitors FROM visits
     WHERE environment_id = $1 AND created_at >= $2 AND created_at < $3`,
    [environmentId, r.from, r.to],
  );
  return { visits: row.visits, uniqueVisitors: row.visitors };
}

export interface WalletGroupRow {
  chain: string;
  provider: string;
  name: string;
  count: number;
}

/** Live wallets created in the range, counted per (chain, provider, name); callers fold the groups. */
export async function walletGroups(q: Queryable, environmentId: string, r: DayRange): Promise<WalletGroupRow[]> {
  const rows = await q.any(
    `SELECT chain, provider, name, count(*) AS n FROM wallets
     WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $2 AND created_at < $3
     GROUP BY chain, provider, name`,
    [environmentId, r.from, r.to],
  );
  return rows.map((x) => ({ chain: x.chain, provider: x.provider, name: x.name, count: x.n }));
}
