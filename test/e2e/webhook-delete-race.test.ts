import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call, type HttpResult } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";

/**
 * Issue 10: `DELETE /webhooks/{id}` right after a redeliver of one of its messages answered 500 "deadlock
 * detected" now and then. The delete locks the webhook row, then (cascade) its messages and attempts; the
 * attempt's outcome transaction updated the attempt and the message, then the webhook row. Each round here
 * races the two: the endpoint answers the redelivery (500, so the outcome touches the webhook row) while the
 * delete arrives, at a jittered moment around the outcome. No round may answer a 5xx.
 */

let app: TestApp;
let rx: Receiver;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp({
    webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, schedule: { live: [0], sandbox: [0] }, requestTimeoutMs: 5000 },
  });
  rx = await Receiver.start();
  t = await app.bootstrap({ ownerEmail: `delete-race-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await rx?.stop();
  await app?.stop();
});

const base = () => `/environments/${t.environmentId}/webhooks`;

const ROUNDS = 30;

describe("deleting a webhook while one of its messages is redelivered", () => {
  it(`never answers a 5xx (${ROUNDS} rounds of redeliver + delete racing the attempt's outcome)`, async () => {
    const statuses: number[] = [];
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const path = `/race-${round}`;
      let deleted: Promise<HttpResult> | undefined;
      let webhookId = "";
      rx.script(path, ({ n }) => {
        if (n === 1) return { status: 200, body: "ping ok" };
        // The redelivery arrived: the delete goes out now (jittered), the answer a little later, so the
        // delete's transaction and the attempt's outcome transaction overlap in varying orders.
        const jitter = Math.floor(Math.random() * 25);
        setTimeout(() => {
          deleted = call(app.baseUrl, "DELETE", `${base()}/${webhookId}`, { token: t.token });
        }, jitter);
        return { status: 500, body: "try again", delayMs: 12 };
      });
      const created = await call(app.baseUrl, "POST", base(), { token: t.token, body: { url: rx.url(path), events: ["user.created"] } });
      expect(created.status, created.text).toBe(201);
      webhookId = created.body.webhookId;
      const pingId = created.body.pingMessageId ?? (await app.db.one("SELECT id FROM webhook_messages WHERE webhook_id = $1", [webhookId])).id;
      await waitFor("the ping delivered", async () => (await app.db.oneOrNone("SELECT 1 FROM webhook_messages WHERE id = $1 AND status = 'delivered'", [pingId])) !== null, { intervalMs: 25 });

      const redelivered = await call(app.baseUrl, "POST", `${base()}/${webhookId}/messages/${pingId}/redeliver`, { token: t.token });
      statuses.push(redelivered.status);
      if (redelivered.status >= 500) failures.push(`round ${round}: redeliver ${redelivered.status} ${redelivered.text}`);
      const res = await waitFor("the delete sent", async () => deleted, { intervalMs: 25 });
      statuses.push(res.status);
      if (res.status !== 204) failures.push(`round ${round}: delete ${res.status} ${res.text}`);
      await waitFor("the outcome settled", async () => rx.received(path).length >= 2, { intervalMs: 25 });
      if ((await app.db.oneOrNone("SELECT 1 FROM webhooks WHERE id = $1", [webhookId])) !== null) failures.push(`round ${round}: the webhook is still there`);
    }
    expect(failures).toEqual([]);
    expect(statuses.every((s) => s < 500)).toBe(true);
    // Afterwards nothing of those endpoints is left behind by a late outcome transaction.
    expect((await app.db.one("SELECT count(*)::int AS n FROM webhook_deliveries WHERE environment_id = $1", [t.environmentId])).n).toBe(0);
  }, 300_000);
});
