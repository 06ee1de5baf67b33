import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { AnalyticsApi, Configuration, EnvironmentsApi } from "@dynamic-labs/sdk-api";
import { AnalyticsService } from "../../src/gen/sigil/analytics/v0/analytics_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
const RANGE = "startDate=2025-03-01&endDate=2025-03-10";
/** The same range in the published client's parameter names (overview, topline, engagement, walletsBreakdown). */
const CLIENT_RANGE = "start=2025-03-01T00:00:00.000Z&end=2025-03-10T12:00:00.000Z";
const AGENTS = {
  // iPhone agents also say "like Mac OS X", Android ones "Linux": the order of the rules matters.
  iPhone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  windows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0",
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
  linux: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
};

/**
 * Seed at known instants around the range 2025-03-01..2025-03-10 (UTC days, both included):
 * users  u1 02-20 (before), u2 03-02 10:00, u3 03-02 23:59:59, u4 03-05 00:00, u5 03-11 00:00 (after),
 *        u6 03-03 but deleted, u7 03-06 (no credential at all)
 * wallets w1 u1 02-20 EVM/browserExtension/metamask, w2 u2 03-02 EVM/embeddedWallet/sigil,
 *        w3 u3 03-04 SOL/browserExtension/phantom, w4 u4 03-05 EVM/browserExtension/metamask, w5 03-06 deleted
 * other credentials: u1 email 03-01 (after its wallet: u1 signs in by wallet), u2 email 03-02 09:00 (before
 *        its wallet: email), u4 google 03-05 00:00 (before its wallet: google); u7 none (unknown)
 * sessions (UTC; 03-01 is a Saturday; ISO weeks A = 02-24, B = 03-03, C = 03-10):
 *        u1 Sun 03-02 01:00 + 02:00 iPhone, u2 Sun 03-02 11:00 Windows, u1 Wed 03-05 09:00 Mac,
 *        u4 Wed 03-05 09:30 Android, u1 Thu 03-06 10:00 Mac, u7 Thu 03-06 15:00 no agent,
 *        u2 Mon 03-10 08:00 Linux; after the range but in week C: u4 03-11, u2 03-12
 * visits a 03-01 x2, b 03-01, a 03-03, c 03-10 23:59:59, d 03-11 (after), e 02-28 23:59:59 (before)
 */
async function seed(environmentId: string) {
  const user = async (name: string, at: string, deleted = false) =>
    (
      await app.db.one(
        `INSERT INTO users (id, environment_id, username, created_at, deleted_at) VALUES (gen_random_uuid(), $1, $2, $3, $4) RETURNING id`,
        [environmentId, name, at, deleted ? at : null],
      )
    ).id as string;
  const u1 = await user("u1", "2025-02-20T12:00:00Z");
  const u2 = await user("u2", "2025-03-02T10:00:00Z");
  const u3 = await user("u3", "2025-03-02T23:59:59Z");
  const u4 = await user("u4", "2025-03-05T00:00:00Z");
  await user("u5", "2025-03-11T00:00:00Z");
  const u6 = await user("u6", "2025-03-03T08:00:00Z", true);
  const u7 = await user("u7", "2025-03-06T12:00:00Z");
  const wallet = (userId: string, chain: string, provider: string, name: string, at: string, deleted = false) =>
    app.db.none(
      `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, created_at, deleted_at)
       VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), $3, $4, $5, $6, $7, $8)`,
      [environmentId, userId, name, chain, `addr-${randomUUID()}`, provider, at, deleted ? at : null],
    );
  await wallet(u1, "EVM", "browserExtension", "metamask", "2025-02-20T12:00:00Z");
  await wallet(u2, "EVM", "embeddedWallet", "sigil", "2025-03-02T10:00:00Z");
  await wallet(u3, "SOL", "browserExtension", "phantom", "2025-03-04T00:00:00Z");
  await wallet(u4, "EVM", "browserExtension", "metamask", "2025-03-05T01:00:00Z");
  await wallet(u6, "EVM", "walletConnect", "rainbow", "2025-03-06T01:00:00Z", true);
  const credential = (userId: string, format: string, oauthProvider: string | null, at: string) =>
    app.db.none(
      `INSERT INTO verified_credentials (id, environment_id, user_id, format, email, oauth_provider, oauth_account_id, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)`,
      [environmentId, userId, format, format === "email" ? `${randomUUID()}@example.com` : null, oauthProvider, oauthProvider ? randomUUID() : null, at],
    );
  await credential(u1, "email", null, "2025-03-01T00:00:00Z");
  await credential(u2, "email", null, "2025-03-02T09:00:00Z");
  await credential(u4, "oauth", "google", "2025-03-05T00:00:00Z");
  const session = (userId: string, at: string, userAgent: string | null = null) =>
    app.db.none(`INSERT INTO sessions (id, environment_id, user_id, created_at, user_agent) VALUES (gen_random_uuid(), $1, $2, $3, $4)`, [
      environmentId,
      userId,
      at,
      userAgent,
    ]);
  await session(u1, "2025-03-02T01:00:00Z", AGENTS.iPhone);
  await session(u1, "2025-03-02T02:00:00Z", AGENTS.iPhone);
  await session(u2, "2025-03-02T11:00:00Z", AGENTS.windows);
  await session(u1, "2025-03-05T09:00:00Z", AGENTS.mac);
  await session(u4, "2025-03-05T09:30:00Z", AGENTS.android);
  await session(u1, "2025-03-06T10:00:00Z", AGENTS.mac);
  await session(u7, "2025-03-06T15:00:00Z");
  await session(u2, "2025-03-10T08:00:00Z", AGENTS.linux);
  await session(u4, "2025-03-11T10:00:00Z", AGENTS.android);
  await session(u2, "2025-03-12T09:00:00Z", AGENTS.linux);
  const visit = (visitor: string, at: string, userId: string | null = null) =>
    app.db.none(`INSERT INTO visits (id, environment_id, visitor_id, user_id, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4)`, [
      environmentId,
      visitor,
      userId,
      at,
    ]);
  await visit("a", "2025-03-01T00:00:00Z");
  await visit("a", "2025-03-01T05:00:00Z", u1);
  await visit("b", "2025-03-01T06:00:00Z");
  await visit("a", "2025-03-03T06:00:00Z");
  await visit("c", "2025-03-10T23:59:59Z");
  await visit("d", "2025-03-11T00:00:00Z");
  await visit("e", "2025-02-28T23:59:59Z");
}

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `analytics-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `analytics-other-${randomUUID()}@example.com` });
  await seed(t.environmentId);
  // The other tenant's identical data must never leak into the first one's numbers (and vice versa).
  await seed(other.environmentId);
  await app.db.none(`INSERT INTO visits (id, environment_id, visitor_id, created_at) VALUES (gen_random_uuid(), $1, 'z', '2025-03-04T00:00:00Z')`, [
    other.environmentId,
  ]);
});
afterAll(() => app?.stop());

const get = (path: string, token = t.token, env = t.environmentId) => call(app.baseUrl, "GET", `/environments/${env}${path}`, { token });
const range = { startDate: "2025-03-01", endDate: "2025-03-10" };
const zeroDays = (fields: Record<string, number>) =>
  Array.from({ length: 10 }, (_, i) => ({ date: `2025-03-${String(i + 1).padStart(2, "0")}`, ...fields }));

describe("analytics over seeded data", () => {
  it("overview: daily active users and sessions by sign-in method and operating system (zero-filled)", async () => {
    const res = await get(`/analytics/overview?${CLIENT_RANGE}&granularity=day`);
    expect(res.status, res.text).toBe(200);
    const dates = zeroDays({}).map((d) => d.date);
    const active: Record<string, number> = { "2025-03-02": 2, "2025-03-05": 2, "2025-03-06": 2, "2025-03-10": 1 };
    const series = (dims: string[], counts: Record<string, Record<string, number>>) =>
      dates.flatMap((date) => dims.map((dimValue) => ({ date, dimValue, nSessionsVisits: counts[date]?.[dimValue] ?? 0 })));
    expect(res.body).toEqual({
      range,
      activeUsers: dates.map((date) => ({ date, nUsers: active[date] ?? 0 })),
      sessions: {
        byLoginMethod: series(["email", "google", "unknown", "wallet"], {
          "2025-03-02": { wallet: 2, email: 1 },
          "2025-03-05": { wallet: 1, google: 1 },
          "2025-03-06": { wallet: 1, unknown: 1 },
          "2025-03-10": { email: 1 },
        }),
        byOperatingSystem: series(["Android", "Linux", "Windows", "iOS", "macOS", "unknown"], {
          "2025-03-02": { iOS: 2, Windows: 1 },
          "2025-03-05": { macOS: 1, Android: 1 },
          "2025-03-06": { macOS: 1, unknown: 1 },
          "2025-03-10": { Linux: 1 },
        }),
      },
    });
    // Sigil's own parameter names give the same answer, and day is the default granularity.
    expect((await get(`/analytics/overview?${RANGE}`)).body).toEqual(res.body);
  });

  it("overview: weekly and monthly periods start on Monday and on the 1st", async () => {
    const weekly = await get(`/analytics/overview?${CLIENT_RANGE}&granularity=week`);
    expect(weekly.status, weekly.text).toBe(200);
    // Week C counts only its days in the range: not u4's session of 03-11.
    expect(weekly.body.activeUsers).toEqual([
      { date: "2025-02-24", nUsers: 2 },
      { date: "2025-03-03", nUsers: 3 },
      { date: "2025-03-10", nUsers: 1 },
    ]);
    expect(weekly.body.sessions.byOperatingSystem.filter((p: any) => p.dimValue === "Android")).toEqual([
      { date: "2025-02-24", dimValue: "Android", nSessionsVisits: 0 },
      { date: "2025-03-03", dimValue: "Android", nSessionsVisits: 1 },
      { date: "2025-03-10", dimValue: "Android", nSessionsVisits: 0 },
    ]);
    // Distinct users over the month, not the sum of the days (u1 was active on three days).
    const monthly = await get(`/analytics/overview?start=2025-02-01&end=2025-03-31&granularity=month`);
    expect(monthly.body.activeUsers).toEqual([
      { date: "2025-02-01", nUsers: 0 },
      { date: "2025-03-01", nUsers: 4 },
    ]);
    expect(monthly.body.sessions.byLoginMethod).toContainEqual({ date: "2025-03-01", dimValue: "email", nSessionsVisits: 3 });
  });

  it("topline: sessions, users and wallets all time and in the range", async () => {
    const res = await get(`/analytics/topline?${CLIENT_RANGE}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      range,
      // u6 and w5 are deleted; u5, w1 and the 03-11 and 03-12 sessions are outside the range.
      sessions: { allTime: 10, inRange: 8 },
      users: { allTime: 6, inRange: 4 },
      wallets: { allTime: 4, inRange: 3 },
    });
  });

  it("engagement: active days per user-week, weekly retention and the heatmap", async () => {
    const res = await get(`/analytics/engagement?${CLIENT_RANGE}`);
    expect(res.status, res.text).toBe(200);
    // User-weeks: (u1,A) 1 day, (u2,A) 1, (u1,B) 2 (Wed and Thu), (u4,B) 1, (u7,B) 1, (u2,C) 1.
    expect(res.body.activeWeeklyDays).toEqual([1, 2, 3, 4, 5, 6, 7].map((nDays) => ({
      nDays,
      nUserWeeks: nDays === 1 ? 5 : nDays === 2 ? 1 : 0,
      pctUserWeeks: nDays === 1 ? 83.33 : nDays === 2 ? 16.67 : 0,
    })));
    const cell = (cohortWeek: string, returningWeek: string, retentionPct?: number) => ({
      cohortWeek,
      returningWeek,
      ...(retentionPct === undefined ? {} : { retentionPct }),
    });
    const [A, B, C] = ["2025-02-24", "2025-03-03", "2025-03-10"];
    expect(res.body.retention).toEqual({
      // Active in A: u1, u2 (u1 back in B, u2 in C); in B: u1, u4, u7 (none back in C).
      allUsers: [cell(A, A, 100), cell(A, B, 50), cell(A, C, 50), cell(B, B, 100), cell(B, C, 0), cell(C, C, 100)],
      // Created in A: u2, u3 (only u2 active, in A and C); in B: u4, u7; in C: nobody (no percentage).
      newUsers: [cell(A, A, 50), cell(A, B, 0), cell(A, C, 50), cell(B, B, 100), cell(B, C, 0), cell(C, C)],
    });
    const heat: Record<string, number> = { "0:1": 1, "0:2": 1, "0:11": 1, "3:9": 2, "4:10": 1, "4:15": 1, "1:8": 1 };
    expect(res.body.sessionsHeatmap).toHaveLength(168);
    expect(res.body.sessionsHeatmap).toEqual(
      Array.from({ length: 168 }, (_, i) => {
        const weekday = Math.floor(i / 24);
        const hourBucket = i % 24;
        return { hourBucket, weekday, nSessionsVisits: heat[`${weekday}:${hourBucket}`] ?? 0 };
      }),
    );
  });
  it("visits: daily visits and unique visitors", async () => {
    const res = await get(`/analytics/visits?${RANGE}`);
    expect(res.status).toBe(200);
    const days = zeroDays({ visits: 0, uniqueVisitors: 0 });
    Object.assign(days[0]!, { visits: 3, uniqueVisitors: 2 });
    Object.assign(days[2]!, { visits: 1, uniqueVisitors: 1 });
    Object.assign(days[9]!, { visits: 1, uniqueVisitors: 1 });
    const series = { totalUnique: 3, sessions: days.map((d: any) => ({ date: d.date, count: d.visits, uniqueUsers: d.uniqueVisitors })) };
    expect(res.body).toEqual({ range, days, uniqueVisitors: 3, visits: series, summedSessionsCount: 5, summedTotalUniqueCount: 3 });
  });

  it("statistics/visitors: users and visitors, all time and unique in the range", async () => {
    const res = await get(`/statistics/visitors?${RANGE}`);
    expect(res.status).toBe(200);
    // Users: six live (u6 is deleted), four with a session in the range (u1, u2, u4, u7). Visitors: a..e all
    // time, a, b and c in the range.
    expect(res.body).toEqual({ users: { count: 6, uniquePastMonth: 4 }, visitors: { count: 5, uniquePastMonth: 3 } });
    // One day only, given as date-times (their UTC day counts): a and b visited, nobody signed in.
    const day = await get(`/statistics/visitors?startDate=2025-03-01T10:00:00Z&endDate=2025-03-01T11:00:00Z`);
    expect(day.body).toEqual({ users: { count: 6, uniquePastMonth: 0 }, visitors: { count: 5, uniquePastMonth: 2 } });
  });

  it("analytics/wallets: the bare array of wallets created in the range by chain and provider", async () => {
    const res = await get(`/analytics/wallets?${RANGE}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { chain: "EVM", provider: "browserExtension", count: 1 },
      { chain: "EVM", provider: "embeddedWallet", count: 1 },
      { chain: "SOL", provider: "browserExtension", count: 1 },
    ]);
  });

  it("analytics/walletsBreakdown: live wallets per wallet name, all time and in the range, by chain", async () => {
    const res = await get(`/analytics/walletsBreakdown?${CLIENT_RANGE}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      range,
      breakdown: {
        // w1 (02-20) counts all time only; the deleted rainbow wallet not at all.
        allTime: [
          { walletNameDisplay: "metamask", nWallets: 2 },
          { walletNameDisplay: "phantom", nWallets: 1 },
          { walletNameDisplay: "sigil", nWallets: 1 },
        ],
        inRange: [
          { walletNameDisplay: "metamask", nWallets: 1 },
          { walletNameDisplay: "phantom", nWallets: 1 },
          { walletNameDisplay: "sigil", nWallets: 1 },
        ],
      },
    });
    const evm = await get(`/analytics/walletsBreakdown?${CLIENT_RANGE}&chain=EVM`);
    expect(evm.body.breakdown).toEqual({
      allTime: [
        { walletNameDisplay: "metamask", nWallets: 2 },
        { walletNameDisplay: "sigil", nWallets: 1 },
      ],
      inRange: [
        { walletNameDisplay: "metamask", nWallets: 1 },
        { walletNameDisplay: "sigil", nWallets: 1 },
      ],
    });
    // A CAIP-2 chain id or a lower-case name names the same family.
    for (const chain of ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "sol"]) {
      const sol = await get(`/analytics/walletsBreakdown?${RANGE}&chain=${chain}`);
      expect(sol.body.breakdown, chain).toEqual({ allTime: [{ walletNameDisplay: "phantom", nWallets: 1 }], inRange: [{ walletNameDisplay: "phantom", nWallets: 1 }] });
    }
    const bad = await get(`/analytics/walletsBreakdown?${RANGE}&chain=NOPE`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_chain", payload: { field: "chain" } });
  });

  it("defaults to the last 30 days, today included", async () => {
    const res = await get(`/analytics/overview`);
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.range).toEqual({ startDate: start, endDate: today });
    expect(res.body.activeUsers).toHaveLength(30);
    expect(res.body.activeUsers[29]).toEqual({ date: today, nUsers: 0 });
  });
});

describe("range rules", () => {
  it("accepts exactly 366 days and refuses 367 (400 invalid_date_range)", async () => {
    const ok = await get(`/analytics/visits?startDate=2024-01-01&endDate=2024-12-31`);
    expect(ok.status).toBe(200);
    expect(ok.body.days).toHaveLength(366);
    for (const p of ["/analytics/overview", "/analytics/topline", "/analytics/engagement", "/analytics/visits", "/analytics/wallets", "/analytics/walletsBreakdown", "/statistics/visitors"]) {
      const res = await get(`${p}?startDate=2024-01-01&endDate=2025-01-01`);
      expect(res.status, p).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_date_range", error: expect.any(String) });
    }
    // Only startDate: the 30 days default does not apply to the end, today does.
    expect((await get(`/analytics/overview?startDate=2020-01-01`)).status).toBe(400);
  });

  it("refuses reversed ranges, impossible dates and non-dates", async () => {
    const reversed = await get(`/analytics/overview?startDate=2025-03-10&endDate=2025-03-01`);
    expect(reversed.status).toBe(400);
    expect(reversed.body.code).toBe("invalid_date_range");
    const impossible = await get(`/analytics/overview?startDate=2025-02-30&endDate=2025-03-01`);
    expect(impossible.status).toBe(400);
    expect(impossible.body.code).toBe("invalid_date");
    const words = await get(`/analytics/overview?startDate=yesterday`);
    expect(words.status).toBe(400);
    expect(words.body.code).toBe("validation_error");
  });

  it("checks the published client's start, end and granularity the same way", async () => {
    const impossible = await get(`/analytics/engagement?start=2025-02-30&end=2025-03-01`);
    expect(impossible.status).toBe(400);
    expect(impossible.body).toMatchObject({ code: "invalid_date", payload: { field: "start" } });
    const reversed = await get(`/analytics/topline?start=2025-03-10&end=2025-03-01`);
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({ code: "invalid_date_range", payload: { field: "start" } });
    const tooLong = await get(`/analytics/walletsBreakdown?start=2024-01-01&end=2025-01-01&chain=EVM`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe("invalid_date_range");
    // Both spellings at once only when they agree.
    expect((await get(`/analytics/topline?start=2025-03-01&startDate=2025-03-01&end=2025-03-10`)).status).toBe(200);
    const conflicting = await get(`/analytics/topline?start=2025-03-01&startDate=2025-03-02`);
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.code).toBe("invalid_date_range");
    const granularity = await get(`/analytics/overview?${CLIENT_RANGE}&granularity=year`);
    expect(granularity.status).toBe(400);
    expect(granularity.body.code).toBe("validation_error");
  });
});

describe("tenancy", () => {
  it("answers 404 to another tenant's tokens", async () => {
    for (const token of [other.token, other.memberToken]) {
      for (const p of ["/analytics/overview", "/analytics/topline", "/analytics/engagement", "/analytics/visits", "/analytics/wallets", "/analytics/walletsBreakdown", "/statistics/visitors"]) {
        const res = await get(p, token);
        expect(res.status, p).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    // Each tenant sees its own numbers: the other one has one more visitor (z).
    const own = await get(`/statistics/visitors?${RANGE}`, other.token, other.environmentId);
    expect(own.body.visitors).toEqual({ count: 6, uniquePastMonth: 4 });
    expect((await get(`/statistics/visitors?${RANGE}`, t.memberToken)).body.visitors).toEqual({ count: 5, uniquePastMonth: 3 });
  });
});

describe("through the published client", () => {
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const clientOf = <T>(cls: new (c: Configuration) => T, token: string) =>
    new cls(new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: token, headers: { Authorization: `Bearer ${token}` } }));

  it("getVisitorsCountByEnvironmentId reads users and visitors: all time, and unique over the last 30 days", async () => {
    const recent = await app.bootstrap({ ownerEmail: `analytics-recent-${randomUUID()}@example.com` });
    const env = recent.environmentId;
    const user = async (deleted = false) =>
      (await app.db.one(`INSERT INTO users (id, environment_id, deleted_at) VALUES (gen_random_uuid(), $1, $2) RETURNING id`, [env, deleted ? daysAgo(1) : null])).id;
    const [old, active, gone] = [await user(), await user(), await user(true)];
    await user(); // never signed in
    const session = (userId: string, at: string) =>
      app.db.none(`INSERT INTO sessions (id, environment_id, user_id, created_at) VALUES (gen_random_uuid(), $1, $2, $3)`, [env, userId, at]);
    await session(old, daysAgo(40));
    await session(active, daysAgo(2));
    await session(active, daysAgo(1));
    await session(gone, daysAgo(1));
    const visit = (visitor: string, at: string) =>
      app.db.none(`INSERT INTO visits (id, environment_id, visitor_id, created_at) VALUES (gen_random_uuid(), $1, $2, $3)`, [env, visitor, at]);
    await visit("p", daysAgo(40));
    await visit("q", daysAgo(3));
    await visit("q", daysAgo(2));
    await visit("r", daysAgo(0));

    const counts = await clientOf(EnvironmentsApi, recent.token).getVisitorsCountByEnvironmentId({ environmentId: env });
    // Live users: three (one deleted); with a session in the last 30 days: one (a deleted user's do not count).
    expect(counts).toEqual({ users: { count: 3, uniquePastMonth: 1 }, visitors: { count: 3, uniquePastMonth: 2 } });
  });

  it("getWalletsBreakdown answers the bare array the client parses", async () => {
    const breakdown = await clientOf(AnalyticsApi, t.token).getWalletsBreakdown({ environmentId: t.environmentId, ...range });
    expect(breakdown).toEqual([
      { chain: "EVM", provider: "browserExtension", count: 1 },
      { chain: "EVM", provider: "embeddedWallet", count: 1 },
      { chain: "SOL", provider: "browserExtension", count: 1 },
    ]);
  });
});

describe("over gRPC", () => {
  it("serves the overview and the visitor count", async () => {
    const client = createClient(AnalyticsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${t.token}` };
    const overview = await client.getAnalyticsOverview({ environmentId: t.environmentId, ...range, granularity: "week" }, { headers });
    expect(overview.activeUsers.map((p) => p.nUsers)).toEqual([2, 3, 1]);
    expect(overview.range).toMatchObject(range);
    const visitors = await client.getVisitorsCount({ environmentId: t.environmentId, ...range }, { headers });
    expect(visitors.users).toMatchObject({ count: 6, uniquePastMonth: 4 });
    expect(visitors.visitors).toMatchObject({ count: 5, uniquePastMonth: 3 });
    // RPC keeps the totals beside the list REST answers bare.
    const wallets = await client.getWalletsBreakdown({ environmentId: t.environmentId, ...range }, { headers });
    expect(wallets.total).toBe(3);
    expect(wallets.byChainAndProvider).toHaveLength(3);
    await expect(client.getVisitorsCount({ environmentId: t.environmentId, startDate: "2020-01-01", endDate: "2025-01-01" }, { headers })).rejects.toMatchObject({
      code: 3,
    });
  });
});

/**
 * The wallet visitors list with the client's filter and orderBy, on its own tenant:
 * users ua (wallets EVM 0xAa11.. then SOL Sol1..), ub (EVM 0xBb22..), uc (no wallet);
 * visits v1 ua 04-01 (sdk-a), v2 ub 04-02 (sdk-b), v3 ua 04-03 (sdk-a), v4 uc 04-04, v5 anonymous 04-05.
 */
// The queries below are written as the published client's VisitsApi sends them (filter[filterColumn]=...); the
// client itself drives this operation in test/compat (scenarios/visits.ts).
describe("visitors: filter and orderBy", () => {
  let vt: BootstrapResult;
  const ids: Record<string, string> = {};
  const EVM_A = `0xAa11${randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const SOL_A = `Sol1${randomUUID().replaceAll("-", "")}`;
  const EVM_B = `0xBb22${randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const list = async (query = "", token = vt.token) => {
    const res = await call(app.baseUrl, "GET", `/environments/${vt.environmentId}/visitors${query ? `?${query}` : ""}`, { token });
    expect(res.status, res.text).toBe(200);
    return { ids: res.body.visitors.map((v: any) => v.id), visitors: res.body.visitors, count: res.body.count };
  };
  const named = (...names: string[]) => names.map((n) => ids[n]);

  beforeAll(async () => {
    vt = await app.bootstrap({ ownerEmail: `visitors-${randomUUID()}@example.com` });
    const user = async (name: string) =>
      (ids[name] = (await app.db.one(`INSERT INTO users (id, environment_id, username) VALUES (gen_random_uuid(), $1, $2) RETURNING id`, [vt.environmentId, name])).id);
    const wallet = (userId: string, chain: string, address: string, at: string) =>
      app.db.none(
        `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, created_at)
         VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'w', $3, $4, 'browserExtension', $5)`,
        [vt.environmentId, userId, chain, address, at],
      );
    const visit = async (name: string, visitor: string, userId: string | null, at: string) =>
      (ids[name] = (
        await app.db.one(`INSERT INTO visits (id, environment_id, visitor_id, user_id, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4) RETURNING id`, [
          vt.environmentId,
          visitor,
          userId,
          at,
        ])
      ).id);
    const [ua, ub, uc] = [await user("ua"), await user("ub"), await user("uc")];
    await wallet(ua, "EVM", EVM_A, "2025-01-01T00:00:00Z");
    await wallet(ua, "SOL", SOL_A, "2025-01-02T00:00:00Z");
    await wallet(ub, "EVM", EVM_B, "2025-01-01T00:00:00Z");
    await visit("v1", "sdk-a", ua, "2025-04-01T00:00:00Z");
    await visit("v2", "sdk-b", ub, "2025-04-02T00:00:00Z");
    await visit("v3", "sdk-a", ua, "2025-04-03T00:00:00Z");
    await visit("v4", "sdk-c", uc, "2025-04-04T00:00:00Z");
    await visit("v5", "sdk-d", null, "2025-04-05T00:00:00Z");
  });

  it("lists wallet visits newest first by default, or oldest first, paged", async () => {
    expect(await list()).toMatchObject({ ids: named("v3", "v2", "v1"), count: 3 });
    expect((await list()).visitors[0]).toMatchObject({ address: EVM_A, chain: "EVM", userId: ids.ua, visitorId: "sdk-a", createdAt: "2025-04-03T00:00:00Z" });
    expect(await list("orderBy=createdAt:desc")).toMatchObject({ ids: named("v3", "v2", "v1") });
    expect(await list("orderBy=createdAt:asc")).toMatchObject({ ids: named("v1", "v2", "v3"), count: 3 });
    expect(await list("orderBy=createdAt:asc&offset=1&limit=1")).toMatchObject({ ids: named("v2"), count: 3 });
  });

  it("filters by walletPublicKey (case-insensitive prefix), showing the matching wallet", async () => {
    const evm = await list(`filter[filterColumn]=walletPublicKey&filter[filterValue]=${EVM_A.slice(0, 8).toUpperCase()}`);
    expect(evm).toMatchObject({ ids: named("v3", "v1"), count: 2 });
    expect(evm.visitors.map((v: any) => v.address)).toEqual([EVM_A, EVM_A]);
    const sol = await list(`filter.filterColumn=walletPublicKey&filter.filterValue=${SOL_A.slice(0, 10).toLowerCase()}`);
    expect(sol).toMatchObject({ ids: named("v3", "v1"), count: 2 });
    expect(sol.visitors.map((v: any) => [v.address, v.chain])).toEqual([[SOL_A, "SOL"], [SOL_A, "SOL"]]);
    // LIKE wildcards are plain characters.
    expect(await list("filter[filterColumn]=walletPublicKey&filter[filterValue]=%25")).toMatchObject({ ids: [], count: 0 });
  });

  it("filters by chain alone or with a column (ETH and EVM are the same chains)", async () => {
    const sol = await list("filter[chain]=SOL");
    expect(sol).toMatchObject({ ids: named("v3", "v1"), count: 2 });
    expect(sol.visitors.map((v: any) => v.chain)).toEqual(["SOL", "SOL"]);
    for (const chain of ["ETH", "EVM"]) {
      const evm = await list(`filter[chain]=${chain}&orderBy=createdAt:asc`);
      expect(evm).toMatchObject({ ids: named("v1", "v2", "v3"), count: 3 });
      expect(evm.visitors.map((v: any) => v.address)).toEqual([EVM_A, EVM_B, EVM_A]);
    }
    expect(await list("filter[chain]=BTC")).toMatchObject({ ids: [], count: 0 });
    expect(await list(`filter[chain]=SOL&filter[filterColumn]=walletPublicKey&filter[filterValue]=${EVM_A.slice(0, 6)}`)).toMatchObject({ count: 0 });
    expect(await list("filter[chain]=SOL&filter[filterColumn]=all&filter[filterValue]=sdk-b")).toMatchObject({ ids: [], count: 0 });
  });

  it("filters by id (the visit's) and by all (visit id, user id, SDK visitor id or wallet prefix)", async () => {
    expect(await list(`filter[filterColumn]=id&filter[filterValue]=${ids.v2}`)).toMatchObject({ ids: named("v2"), count: 1 });
    expect(await list(`filter[filterColumn]=id&filter[filterValue]=${ids.v4}`)).toMatchObject({ ids: [], count: 0 });
    expect(await list("filter[filterColumn]=id&filter[filterValue]=not-a-uuid")).toMatchObject({ ids: [], count: 0 });
    const all = (v: string) => list(`filter[filterColumn]=all&filter[filterValue]=${encodeURIComponent(v)}`);
    expect(await all(ids.v1!)).toMatchObject({ ids: named("v1"), count: 1 });
    expect(await all(ids.ub!)).toMatchObject({ ids: named("v2"), count: 1 });
    expect(await all("sdk-a")).toMatchObject({ ids: named("v3", "v1"), count: 2 });
    expect(await all("sdk-c")).toMatchObject({ ids: [], count: 0 });
    expect(await all(EVM_B.slice(0, 8).toLowerCase())).toMatchObject({ ids: named("v2"), count: 1 });
    const bySol = await all(SOL_A.slice(0, 8));
    expect(bySol.visitors.map((v: any) => v.address)).toEqual([SOL_A, SOL_A]);
  });

  it("refuses unknown columns, orders and chains, and a column without a value, with 400", async () => {
    for (const query of [
      "filter[filterColumn]=email&filter[filterValue]=x",
      "orderBy=address:asc",
      "orderBy=createdAt:up",
      "filter[chain]=DOGE",
      "filter[filterColumn]=id",
      "filter[filterValue]=sdk-a",
    ]) {
      const res = await call(app.baseUrl, "GET", `/environments/${vt.environmentId}/visitors?${query}`, { token: vt.token });
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe("validation_error");
    }
  });

  it("never shows another tenant's visits", async () => {
    expect((await call(app.baseUrl, "GET", `/environments/${vt.environmentId}/visitors`, { token: other.token })).status).toBe(404);
    const theirs = await call(app.baseUrl, "GET", `/environments/${other.environmentId}/visitors?filter[filterColumn]=all&filter[filterValue]=sdk-a`, {
      token: other.token,
    });
    expect(theirs.body).toEqual({ visitors: [], count: 0 });
  });
});
