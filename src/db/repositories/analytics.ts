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

/** The period each point of a series covers; Postgres' date_trunc unit (weeks are ISO: from Monday). */
export type Granularity = "day" | "week" | "month";

/** Periods of the range: the first day of each period that meets startDate..endDate (the first may start before). */
const PERIODS = `periods AS (SELECT p::date AS period FROM generate_series(date_trunc($6::text, $2::date::timestamp), $3::date::timestamp, ('1 ' || $6::text)::interval) p)`;
const PERIOD_OF = (col: string) => `date_trunc($6::text, ${col} AT TIME ZONE 'UTC')::date`;
const SESSIONS_IN_RANGE = `s.environment_id = $1 AND s.created_at >= $4 AND s.created_at < $5`;

export interface ActiveUsersRow {
  date: string;
  nUsers: number;
}

/** Distinct users with a session in each period (within the range), zero-filled. */
export async function activeUsersSeries(q: Queryable, environmentId: string, r: DayRange, g: Granularity): Promise<ActiveUsersRow[]> {
  const rows = await q.any(
    `WITH ${PERIODS},
     a AS (SELECT ${PERIOD_OF("s.created_at")} AS period, count(DISTINCT s.user_id) AS n FROM sessions s
           WHERE ${SESSIONS_IN_RANGE} GROUP BY 1)
     SELECT to_char(period, 'YYYY-MM-DD') AS date, coalesce(a.n, 0) AS n FROM periods LEFT JOIN a USING (period) ORDER BY period`,
    [...params(environmentId, r), g],
  );
  return rows.map((x) => ({ date: x.date, nUsers: x.n }));
}

/**
 * What a session is counted by. Sessions record neither how they were opened nor a parsed platform, so:
 * - loginMethod: the user's earliest credential (wallet, email, phoneNumber or the OAuth provider), i.e.
 *   how they first proved who they are; deleted wallets still count, so the figure never changes once counted.
 * - operatingSystem: told from the user agent; order matters (iPhone agents say "like Mac OS X", Android
 *   ones "Linux"), and CrOS is matched case-sensitively as a word so that "Microsoft" is not ChromeOS.
 */
const DIMENSIONS = {
  loginMethod: {
    join: `LEFT JOIN LATERAL (
             SELECT kind FROM (
               SELECT 'wallet' AS kind, w.created_at, w.id FROM wallets w
               WHERE w.environment_id = s.environment_id AND w.user_id = s.user_id
               UNION ALL
               SELECT CASE vc.format WHEN 'oauth' THEN coalesce(nullif(vc.oauth_provider, ''), 'oauth') ELSE vc.format END,
                      vc.created_at, vc.id FROM verified_credentials vc
               WHERE vc.environment_id = s.environment_id AND vc.user_id = s.user_id
             ) c ORDER BY created_at, id LIMIT 1) m ON true`,
    value: `coalesce(m.kind, 'unknown')`,
  },
  operatingSystem: {
    join: ``,
    value: `CASE
              WHEN coalesce(s.user_agent, '') = '' THEN 'unknown'
              WHEN s.user_agent ~* 'iphone|ipad|ipod' THEN 'iOS'
              WHEN s.user_agent ~* 'android' THEN 'Android'
              WHEN s.user_agent ~ '\\mCrOS\\M' THEN 'ChromeOS'
              WHEN s.user_agent ~* 'windows' THEN 'Windows'
              WHEN s.user_agent ~* 'macintosh|mac os x' THEN 'macOS'
              WHEN s.user_agent ~* 'linux' THEN 'Linux'
              ELSE 'other' END`,
  },
} as const;
export type SessionDimension = keyof typeof DIMENSIONS;

export interface SessionsByDimensionRow {
  date: string;
  dimValue: string;
  nSessionsVisits: number;
}

/** Sessions per period and dimension value; every value seen in the range gets a point in every period. */
export async function sessionsByDimension(
  q: Queryable,
  environmentId: string,
  r: DayRange,
  g: Granularity,
  dimension: SessionDimension,
): Promise<SessionsByDimensionRow[]> {
  const d = DIMENSIONS[dimension];
  const rows = await q.any(
    `WITH ${PERIODS},
     c AS (SELECT ${PERIOD_OF("s.created_at")} AS period, ${d.value} AS dim, count(*) AS n FROM sessions s ${d.join}
           WHERE ${SESSIONS_IN_RANGE} GROUP BY 1, 2),
     dims AS (SELECT DISTINCT dim FROM c)
     SELECT to_char(p.period, 'YYYY-MM-DD') AS date, dims.dim, coalesce(c.n, 0) AS n
     FROM periods p CROSS JOIN dims LEFT JOIN c ON c.period = p.period AND c.dim = dims.dim
     ORDER BY p.period, dims.dim COLLATE "C"`,
    [...params(environmentId, r), g],
  );
  return rows.map((x) => ({ date: x.date, dimValue: x.dim, nSessionsVisits: x.n }));
}

export interface AllTimeAndInRange {
  allTime: number;
  inRange: number;
}

/** All sessions and live users and wallets, and those created in the range. */
export async function toplineCounts(
  q: Queryable,
  environmentId: string,
  r: DayRange,
): Promise<{ sessions: AllTimeAndInRange; users: AllTimeAndInRange; wallets: AllTimeAndInRange }> {
  const inRange = `count(*) FILTER (WHERE created_at >= $2 AND created_at < $3)`;
  const row = await q.one(
    `SELECT s.all_time AS s_all, s.in_range AS s_in, u.all_time AS u_all, u.in_range AS u_in, w.all_time AS w_all, w.in_range AS w_in
     FROM (SELECT count(*) AS all_time, ${inRange} AS in_range FROM sessions WHERE environment_id = $1) s,
          (SELECT count(*) AS all_time, ${inRange} AS in_range FROM users WHERE environment_id = $1 AND deleted_at IS NULL) u,
          (SELECT count(*) AS all_time, ${inRange} AS in_range FROM wallets WHERE environment_id = $1 AND deleted_at IS NULL) w`,
    [environmentId, r.from, r.to],
  );
  return {
    sessions: { allTime: row.s_all, inRange: row.s_in },
    users: { allTime: row.u_all, inRange: row.u_in },
    wallets: { allTime: row.w_all, inRange: row.w_in },
  };
}

/** How many user-weeks (ISO weeks, UTC) had sessions on n distinct days, for n = 1..7 (zero-filled). */
export async function activeDaysPerUserWeek(q: Queryable, environmentId: string, r: DayRange): Promise<{ nDays: number; nUserWeeks: number }[]> {
  const rows = await q.any(
    `WITH uw AS (SELECT s.user_id, date_trunc('week', s.created_at AT TIME ZONE 'UTC') AS week,
                        count(DISTINCT ${UTC_DAY("s.created_at")}) AS n_days
                 FROM sessions s WHERE s.environment_id = $1 AND s.created_at >= $2 AND s.created_at < $3 GROUP BY 1, 2),
          d AS (SELECT n_days, count(*) AS n FROM uw GROUP BY 1)
     SELECT g.n_days, coalesce(d.n, 0) AS n FROM generate_series(1, 7) g(n_days) LEFT JOIN d USING (n_days) ORDER BY g.n_days`,
    [environmentId, r.from, r.to],
  );
  return rows.map((x) => ({ nDays: x.n_days, nUserWeeks: x.n }));
}

export interface RetentionCellRow {
  cohortWeek: string;
  returningWeek: string;
  /** Cohort sizes and how many of each cohort had a session in the returning week. */
  allUsers: number;
  allUsersReturning: number;
  newUsers: number;
  newUsersReturning: number;
}

/**
 * Weekly cohorts over the ISO weeks meeting the range, sessions and sign-ups counted within the range only:
 * the all-users cohort of a week is who had a session in it, the new-users cohort who was created in it
 * (and is not deleted). One row per (cohort week, returning week >= cohort week), zero-filled.
 */
export async function retentionCells(q: Queryable, environmentId: string, r: DayRange): Promise<RetentionCellRow[]> {
  const week = (col: string) => `date_trunc('week', ${col} AT TIME ZONE 'UTC')::date`;
  const rows = await q.any(
    `WITH weeks AS (SELECT w::date AS week FROM generate_series(date_trunc('week', $2::date::timestamp), $3::date::timestamp, interval '1 week') w),
     act AS (SELECT DISTINCT s.user_id, ${week("s.created_at")} AS week FROM sessions s
             WHERE s.environment_id = $1 AND s.created_at >= $4 AND s.created_at < $5),
     born AS (SELECT id AS user_id, ${week("created_at")} AS week FROM users
              WHERE environment_id = $1 AND deleted_at IS NULL AND created_at >= $4 AND created_at < $5),
     all_size AS (SELECT week, count(*) AS n FROM act GROUP BY 1),
     all_ret AS (SELECT c.week AS cohort, r.week AS ret, count(*) AS n FROM act c JOIN act r ON r.user_id = c.user_id AND r.week >= c.week GROUP BY 1, 2),
     new_size AS (SELECT week, count(*) AS n FROM born GROUP BY 1),
     new_ret AS (SELECT b.week AS cohort, r.week AS ret, count(*) AS n FROM born b JOIN act r ON r.user_id = b.user_id AND r.week >= b.week GROUP BY 1, 2)
     SELECT to_char(c.week, 'YYYY-MM-DD') AS cohort, to_char(r.week, 'YYYY-MM-DD') AS ret,
            coalesce(asz.n, 0) AS all_n, coalesce(ar.n, 0) AS all_ret, coalesce(nsz.n, 0) AS new_n, coalesce(nr.n, 0) AS new_ret
     FROM weeks c JOIN weeks r ON r.week >= c.week
     LEFT JOIN all_size asz ON asz.week = c.week
     LEFT JOIN all_ret ar ON ar.cohort = c.week AND ar.ret = r.week
     LEFT JOIN new_size nsz ON nsz.week = c.week
     LEFT JOIN new_ret nr ON nr.cohort = c.week AND nr.ret = r.week
     ORDER BY c.week, r.week`,
    params(environmentId, r),
  );
  return rows.map((x) => ({
    cohortWeek: x.cohort,
    returningWeek: x.ret,
    allUsers: x.all_n,
    allUsersReturning: x.all_ret,
    newUsers: x.new_n,
    newUsersReturning: x.new_ret,
  }));
}

/** Sessions in the range by UTC weekday (0 = Sunday) and hour, all 168 cells, by weekday then hour. */
export async function sessionsHeatmap(q: Queryable, environmentId: string, r: DayRange): Promise<{ weekday: number; hourBucket: number; nSessionsVisits: number }[]> {
  const rows = await q.any(
    `WITH s AS (SELECT extract(dow FROM created_at AT TIME ZONE 'UTC')::int AS weekday, extract(hour FROM created_at AT TIME ZONE 'UTC')::int AS hour,
                       count(*) AS n
                FROM sessions WHERE environment_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1, 2)
     SELECT d.weekday, h.hour, coalesce(s.n, 0) AS n
     FROM generate_series(0, 6) d(weekday) CROSS JOIN generate_series(0, 23) h(hour) LEFT JOIN s USING (weekday, hour)
     ORDER BY d.weekday, h.hour`,
    [environmentId, r.from, r.to],
  );
  return rows.map((x) => ({ weekday: x.weekday, hourBucket: x.hour, nSessionsVisits: x.n }));
}

export interface WalletNameRow {
  name: string;
  allTime: number;
  inRange: number;
}

/** Live wallets per wallet name, all time and created in the range; of one chain when `chain` is given. */
export async function walletsByName(q: Queryable, environmentId: string, r: DayRange, chain: string | null): Promise<WalletNameRow[]> {
  const rows = await q.any(
    `SELECT coalesce(nullif(name, ''), 'unknown') AS name, count(*) AS all_time,
            count(*) FILTER (WHERE created_at >= $2 AND created_at < $3) AS in_range
     FROM wallets WHERE environment_id = $1 AND deleted_at IS NULL AND ($4::text IS NULL OR chain = $4) GROUP BY 1`,
    [environmentId, r.from, r.to, chain],
  );
  return rows.map((x) => ({ name: x.name, allTime: x.all_time, inRange: x.in_range }));
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

export interface AllTimeAndDistinctInRange {
  allTime: number;
  inRange: number;
}

/**
 * Live users (all time, and those with a session in the range) and distinct visitor ids of visits (all time,
 * and those that visited in the range). Sessions of deleted users do not count: the user is gone.
 */
export async function userAndVisitorCounts(
  q: Queryable,
  environmentId: string,
  r: DayRange,
): Promise<{ users: AllTimeAndDistinctInRange; visitors: AllTimeAndDistinctInRange }> {
  const row = await q.one(
    `SELECT (SELECT count(*) FROM users WHERE environment_id = $1 AND deleted_at IS NULL) AS u_all,
            (SELECT count(DISTINCT s.user_id) FROM sessions s JOIN users u ON u.id = s.user_id AND u.deleted_at IS NULL
             WHERE s.environment_id = $1 AND s.created_at >= $2 AND s.created_at < $3) AS u_in,
            (SELECT count(DISTINCT visitor_id) FROM visits WHERE environment_id = $1) AS v_all,
            (SELECT count(DISTINCT visitor_id) FROM visits WHERE environment_id = $1 AND created_at >= $2 AND created_at < $3) AS v_in`,
    [environmentId, r.from, r.to],
  );
  return { users: { allTime: row.u_all, inRange: row.u_in }, visitors: { allTime: row.v_all, inRange: row.v_in } };
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

/**
 * Records a visit. The user is the live owner of the visitor's wallet in the environment, when there is
 * one (looked up in the same statement, so the visit and its owner are read at one instant).
 */
export async function insertVisit(q: Queryable, environmentId: string, v: { id: string; visitorId: string; chains: string[]; address: string }): Promise<void> {
  await q.none(
    `INSERT INTO visits (id, environment_id, visitor_id, user_id)
     VALUES ($1, $2, $3, (SELECT user_id FROM wallets WHERE environment_id = $2 AND chain = ANY($4::text[]) AND address = $5 AND deleted_at IS NULL LIMIT 1))`,
    [v.id, environmentId, v.visitorId, v.chains, v.address],
  );
}
