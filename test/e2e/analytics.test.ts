import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { AnalyticsService } from "../../src/gen/sigil/analytics/v0/analytics_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
const RANGE = "startDate=2025-03-01&endDate=2025-03-10";

/**
 * Seed at known instants around the range 2025-03-01..2025-03-10 (UTC days, both included):
 * users  u1 02-20 (before), u2 03-02 10:00, u3 03-02 23:59:59, u4 03-05 00:00, u5 03-11 00:00 (after),
 *        u6 03-03 but deleted
 * wallets w1 u1 02-20 EVM/browserExtension/metamask, w2 u2 03-02 EVM/embeddedWallet/sigil,
 *        w3 u3 03-04 SOL/browserExtension/phantom, w4 u4 03-05 EVM/browserExtension/metamask, w5 03-06 deleted
 * sessions u1 03-02 x2, u2 03-02, u1 03-05, u4 03-05, u2 03-12 (after)
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
  const session = (userId: string, at: string) =>
    app.db.none(`INSERT INTO sessions (id, environment_id, user_id, created_at) VALUES (gen_random_uuid(), $1, $2, $3)`, [environmentId, userId, at]);
  await session(u1, "2025-03-02T01:00:00Z");
  await session(u1, "2025-03-02T02:00:00Z");
  await session(u2, "2025-03-02T11:00:00Z");
  await session(u1, "2025-03-05T09:00:00Z");
  await session(u4, "2025-03-05T09:30:00Z");
  await session(u2, "2025-03-12T09:00:00Z");
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
  it("overview", async () => {
    const res = await get(`/analytics/overview?${RANGE}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      range,
      totalUsers: 4,
      newUsers: 3,
      totalWallets: 4,
      newWallets: 3,
      sessions: 5,
      activeUsers: 3,
      visits: 5,
      uniqueVisitors: 3,
    });
  });

  it("topline: zero-filled daily new users, wallets and sessions", async () => {
    const res = await get(`/analytics/topline?${RANGE}`);
    expect(res.status).toBe(200);
    const days = zeroDays({ newUsers: 0, newWallets: 0, sessions: 0 });
    Object.assign(days[1]!, { newUsers: 2, newWallets: 1, sessions: 3 });
    Object.assign(days[3]!, { newWallets: 1 });
    Object.assign(days[4]!, { newUsers: 1, newWallets: 1, sessions: 2 });
    expect(res.body).toEqual({ range, days, newUsers: 3, newWallets: 3, sessions: 5 });
  });

  it("engagement: daily active and returning users", async () => {
    const res = await get(`/analytics/engagement?${RANGE}`);
    expect(res.status).toBe(200);
    const days = zeroDays({ activeUsers: 0, returningUsers: 0, sessions: 0 });
    Object.assign(days[1]!, { activeUsers: 2, returningUsers: 1, sessions: 3 });
    Object.assign(days[4]!, { activeUsers: 2, returningUsers: 1, sessions: 2 });
    expect(res.body).toEqual({ range, days, activeUsers: 3, returningUsers: 1 });
  });

  it("visits: daily visits and unique visitors", async () => {
    const res = await get(`/analytics/visits?${RANGE}`);
    expect(res.status).toBe(200);
    const days = zeroDays({ visits: 0, uniqueVisitors: 0 });
    Object.assign(days[0]!, { visits: 3, uniqueVisitors: 2 });
    Object.assign(days[2]!, { visits: 1, uniqueVisitors: 1 });
    Object.assign(days[9]!, { visits: 1, uniqueVisitors: 1 });
    expect(res.body).toEqual({ range, days, visits: 5, uniqueVisitors: 3 });
  });

  it("statistics/visitors: unique visitors in the range", async () => {
    const res = await get(`/statistics/visitors?${RANGE}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ range, count: 3 });
    // One day only, given as date-times (their UTC day counts).
    const day = await get(`/statistics/visitors?startDate=2025-03-01T10:00:00Z&endDate=2025-03-01T11:00:00Z`);
    expect(day.body).toEqual({ range: { startDate: "2025-03-01", endDate: "2025-03-01" }, count: 2 });
  });

  it("analytics/wallets: by chain and provider", async () => {
    const res = await get(`/analytics/wallets?${RANGE}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      range,
      total: 3,
      byChain: [
        { key: "EVM", count: 2 },
        { key: "SOL", count: 1 },
      ],
      byProvider: [
        { key: "browserExtension", count: 2 },
        { key: "embeddedWallet", count: 1 },
      ],
      byChainAndProvider: [
        { chain: "EVM", provider: "browserExtension", count: 1 },
        { chain: "EVM", provider: "embeddedWallet", count: 1 },
        { chain: "SOL", provider: "browserExtension", count: 1 },
      ],
    });
  });

  it("analytics/walletsBreakdown: by connector, provider, embedded vs external", async () => {
    const res = await get(`/analytics/walletsBreakdown?${RANGE}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      range,
      total: 3,
      byConnector: [
        { key: "metamask", count: 1 },
        { key: "phantom", count: 1 },
        { key: "sigil", count: 1 },
      ],
      byProvider: [
        { key: "browserExtension", count: 2 },
        { key: "embeddedWallet", count: 1 },
      ],
      embedded: 1,
      external: 2,
    });
    // A wider range takes in w1 (02-20).
    const wide = await get(`/analytics/walletsBreakdown?startDate=2025-02-01&endDate=2025-03-31`);
    expect(wide.body).toMatchObject({ total: 4, embedded: 1, external: 3, byConnector: [{ key: "metamask", count: 2 }, { key: "phantom", count: 1 }, { key: "sigil", count: 1 }] });
  });

  it("defaults to the last 30 days, today included", async () => {
    const res = await get(`/analytics/topline`);
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.range).toEqual({ startDate: start, endDate: today });
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[29].date).toBe(today);
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
    expect(own.body.count).toBe(4);
    expect((await get(`/statistics/visitors?${RANGE}`, t.memberToken)).body.count).toBe(3);
  });
});

describe("over gRPC", () => {
  it("serves the overview and the visitor count", async () => {
    const client = createClient(AnalyticsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const headers = { authorization: `Bearer ${t.token}` };
    const overview = await client.getAnalyticsOverview({ environmentId: t.environmentId, ...range }, { headers });
    expect(overview.newUsers).toBe(3);
    expect(overview.range).toMatchObject(range);
    const visitors = await client.getVisitorsCount({ environmentId: t.environmentId, ...range }, { headers });
    expect(visitors.count).toBe(3);
    await expect(client.getVisitorsCount({ environmentId: t.environmentId, startDate: "2020-01-01", endDate: "2025-01-01" }, { headers })).rejects.toMatchObject({
      code: 3,
    });
  });
});
