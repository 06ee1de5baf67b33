import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { resolver } from "../../src/net/destination-policy.js";
import { insertPingMessage } from "../../src/domain/webhooks/messages.js";
import { newWebhookSecret, sealWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";

/**
 * Webhook destinations as an attacker would try them (issue 10): every special-purpose range and spelling
 * at creation, in live and sandbox; at delivery, URLs that got into the table anyway (written before the
 * policy, or allowed by rules since changed) and names that resolve inwards. Nothing here ever connects
 * to a non-loopback address: those are refused before any connection, and names resolve through the
 * policy's lookup seam (there is no DNS in tests).
 */

let app: TestApp;
let t: BootstrapResult;
/** "Internal services": their replies must never come back to the tenant. */
let internal: Receiver;
/** Stands for one of the service's own ports (the API's, the embedded Postgres'). */
let ownService: Receiver;
/** A port that is open but speaks no TLS (for an https URL: looks like a closed port from outside). */
let plainTcp: Server;
let closedPort: number;
const INTERNAL_REPLY = "internal-secret-reply";
const ALLOWED_NAME = "probe.allowed-by-operator.test";

const realLookup = resolver.lookup;
const fakeDns = new Map<string, string[]>();

beforeAll(async () => {
  internal = await Receiver.start();
  internal.script("/", () => ({ status: 200, body: INTERNAL_REPLY }));
  ownService = await Receiver.start();
  ownService.script("/", () => ({ status: 200, body: INTERNAL_REPLY }));
  plainTcp = createServer((s) => {
    s.on("error", () => {});
    s.end("SSH-2.0-OpenSSH_9.6\r\n", () => s.destroy());
  });
  await new Promise<void>((r) => plainTcp.listen(0, "127.0.0.1", () => r()));
  // A port nobody listens on: take one and give it back.
  const probe = await Receiver.start();
  closedPort = probe.port;
  await probe.stop();
  app = await startTestApp({
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      schedule: { live: [0], sandbox: [0] },
      requestTimeoutMs: 5000,
      allowHosts: [ALLOWED_NAME],
      sandboxLoopback: true,
      protectedPorts: [ownService.port, 56432],
    },
  });
  t = await app.bootstrap({ ownerEmail: `ssrf-${randomUUID()}@example.com` });
  resolver.lookup = async (host) => {
    const answer = fakeDns.get(host);
    if (!answer) throw Object.assign(new Error(`no fake DNS entry for ${host}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}, 60_000);

afterAll(async () => {
  resolver.lookup = realLookup;
  await app?.stop();
  await internal?.stop();
  await ownService?.stop();
  await new Promise((r) => (plainTcp ? plainTcp.close(r) : r(undefined)));
});

afterEach(() => {
  app.config.webhooks.sandboxLoopback = true;
  fakeDns.clear();
});

const webhooksOf = (env: string) => `/environments/${env}/webhooks`;

function createIn(env: "sandbox" | "live", url: string) {
  return call(app.baseUrl, "POST", webhooksOf(env === "sandbox" ? t.environmentId : t.liveEnvironmentId), {
    token: env === "sandbox" ? t.token : t.memberToken,
    body: { url, events: ["user.created"], isEnabled: false },
  });
}

async function countWebhooks() {
  return (await app.db.one("SELECT count(*)::int AS n FROM webhooks WHERE environment_id = ANY($1::uuid[])", [[t.environmentId, t.liveEnvironmentId]])).n;
}

/** Special-purpose hosts in every spelling the probe used (and then some). */
const SPECIAL_HOSTS = [
  "169.254.169.254", "10.0.0.1", "10.255.255.53", "172.16.0.1", "192.168.1.1", "100.64.0.1", "0.0.0.0", "0", "[::]",
  "192.0.2.1", "198.18.0.1", "198.19.0.1", "198.51.100.1", "203.0.113.1", "224.0.0.1", "255.255.255.255",
  "[2001:db8::1]", "[64:ff9b::127.0.0.1]", "[64:ff9b::a9fe:a9fe]", "[::127.0.0.1]", "[::ffff:169.254.169.254]",
  "[::ffff:10.0.0.1]", "[::ffff:192.168.1.1]", "[fe80::1]", "[fc00::1]", "[fd00::1]", "[ff02::1]", "[2002:a9fe:a9fe::1]",
  "2852039166" /* 169.254.169.254 */, "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "10.1", "0xa.1", "167772161",
];
const LOOPBACK_SPELLINGS = ["127.0.0.1", "2130706433", "0x7f.1", "0x7f000001", "127.1", "0177.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "localhost"];

describe("at creation", () => {
  it("refuses every special-purpose range and spelling, in live and in sandbox, changing nothing", async () => {
    const before = await countWebhooks();
    for (const host of SPECIAL_HOSTS) {
      for (const [env, scheme] of [["live", "https"], ["sandbox", "http"], ["sandbox", "https"]] as const) {
        const res = await createIn(env, `${scheme}://${host}/latest/meta-data`);
        expect(res.status, `${env} ${scheme}://${host}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ code: "webhook_url_host_not_allowed", error: expect.any(String) });
      }
    }
    expect(await countWebhooks()).toBe(before);
  });

  it("refuses loopback in live in every spelling, and local names", async () => {
    for (const host of [...LOOPBACK_SPELLINGS, "api.localhost", "db.internal", "printer.local", "postgres"]) {
      const res = await createIn("live", `https://${host}:${internal.port}/`);
      expect(res.status, `${host}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe("webhook_url_host_not_allowed");
    }
  });

  it("lets sandbox use loopback (documented), but not the service's own ports, nor when the operator turned it off", async () => {
    for (const host of LOOPBACK_SPELLINGS) expect((await createIn("sandbox", `http://${host}:${internal.port}/`)).status, host).toBe(201);
    for (const port of [ownService.port, 56432]) {
      for (const host of ["127.0.0.1", "localhost", "[::1]", "2130706433"]) {
        const res = await createIn("sandbox", `http://${host}:${port}/`);
        expect(res.status, `${host}:${port}`).toBe(400);
        expect(res.body.code).toBe("webhook_url_host_not_allowed");
      }
    }
    app.config.webhooks.sandboxLoopback = false;
    for (const host of LOOPBACK_SPELLINGS) expect((await createIn("sandbox", `http://${host}:${internal.port}/`)).status, host).toBe(400);
  });

  it("refuses control characters in the URL, also those the URL parser would silently drop", async () => {
    const before = await countWebhooks();
    for (const url of [`http://127.0.0.1:${internal.port}/a\u0000b`, `http://127.0.0.1:${internal.port}/a\tb`, `http://127.0.0.1:${internal.port}/a\nb`, `http://127.0.0.1:${internal.port}/\r`, `http://127.0.0.1:${internal.port}/\u007f`, `http://exa\nmple.com/`]) {
      const res = await createIn("sandbox", url);
      expect(res.status, JSON.stringify(url)).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect(await countWebhooks()).toBe(before);
  });

  it("refuses the same on update", async () => {
    const created = await createIn("sandbox", `http://127.0.0.1:${internal.port}/`);
    expect(created.status).toBe(201);
    for (const url of ["http://169.254.169.254/", "http://[::ffff:a9fe:a9fe]/", `http://127.0.0.1:${ownService.port}/`]) {
      const res = await call(app.baseUrl, "PUT", `${webhooksOf(t.environmentId)}/${created.body.webhookId}`, { token: t.token, body: { url } });
      expect(res.status, url).toBe(400);
    }
    expect((await app.db.one("SELECT url FROM webhooks WHERE id = $1", [created.body.webhookId])).url).toBe(`http://127.0.0.1:${internal.port}/`);
  });
});

/** Puts an endpoint straight into the table (as one written before the policy, or under other rules) and delivers its ping once. */
async function deliverTo(env: "sandbox" | "live", url: string) {
  const environmentId = env === "sandbox" ? t.environmentId : t.liveEnvironmentId;
  const id = randomUUID();
  await app.db.none(`INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`, [
    id,
    environmentId,
    url,
    ["user.created"],
    sealWebhookSecret(app.deps.sealer, id, newWebhookSecret()),
  ]);
  const { messageId } = await insertPingMessage(app.db, { webhookId: id, environmentId, environmentName: env });
  await app.deps.flows.startWebhookDelivery({ environmentId, messageId });
  const delivery = await waitFor(`a finished attempt for ${url}`, () =>
    app.db.oneOrNone(
      "SELECT * FROM webhook_deliveries WHERE message_id = $1 AND error IS DISTINCT FROM 'no response recorded: the attempt was interrupted (worker stopped)'",
      [messageId],
    ),
  );
  return { webhookId: id, messageId, delivery };
}

/** What the token holder reads back: the message details (one entry per attempt). */
async function attemptsSeenByTenant(env: "sandbox" | "live", webhookId: string, messageId: string) {
  const environmentId = env === "sandbox" ? t.environmentId : t.liveEnvironmentId;
  const res = await call(app.baseUrl, "GET", `${webhooksOf(environmentId)}/${webhookId}/messages/${messageId}`, {
    token: env === "sandbox" ? t.token : t.memberToken,
  });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

describe("at delivery", () => {
  it("refuses a stored URL at 0.0.0.0, at the service's own port, at loopback in live: no request, no excerpt, a generic error", async () => {
    const cases = [
      ["sandbox", `http://0.0.0.0:${internal.port}/`],
      ["sandbox", `http://127.0.0.1:${ownService.port}/`],
      ["sandbox", `http://localhost:${ownService.port}/`],
      ["live", `https://127.0.0.1:${internal.port}/`],
      ["live", `https://[::ffff:127.0.0.1]:${internal.port}/`],
      ["live", `https://localhost:${internal.port}/`],
    ] as const;
    for (const [env, url] of cases) {
      const { webhookId, messageId, delivery } = await deliverTo(env, url);
      expect(delivery, url).toMatchObject({ response_status: null, response_body_excerpt: null, error: "destination_refused" });
      expect(await attemptsSeenByTenant(env, webhookId, messageId)).not.toContain(INTERNAL_REPLY);
    }
    expect(internal.received()).toHaveLength(0);
    expect(ownService.received()).toHaveLength(0);
  });

  it("refuses stored sandbox loopback once the operator turned loopback off", async () => {
    app.config.webhooks.sandboxLoopback = false;
    const { delivery } = await deliverTo("sandbox", `http://127.0.0.1:${internal.port}/`);
    expect(delivery).toMatchObject({ response_body_excerpt: null, error: "destination_refused" });
    expect(internal.received()).toHaveLength(0);
  });

  it("refuses a public-looking name that resolves inwards (checked on the resolved address, in live and sandbox)", async () => {
    for (const inwards of ["127.0.0.1", "::ffff:127.0.0.1", "10.0.0.1", "169.254.169.254", "64:ff9b::7f00:1", "0.0.0.0"]) {
      fakeDns.set("hooks.tenant-owned.example", [inwards]);
      const live = await deliverTo("live", `https://hooks.tenant-owned.example:${internal.port}/`);
      expect(live.delivery, inwards).toMatchObject({ response_body_excerpt: null, error: "destination_refused" });
      if (inwards.includes("127.0.0.1")) continue; // loopback is a sandbox's right
      const sandbox = await deliverTo("sandbox", `http://hooks.tenant-owned.example:${internal.port}/`);
      expect(sandbox.delivery, inwards).toMatchObject({ response_body_excerpt: null, error: "destination_refused" });
    }
    expect(internal.received()).toHaveLength(0);
  });

  it("connects to exactly the address it checked (DNS rebinding: the name answers otherwise afterwards)", async () => {
    // Two "hosts" on the same port: 127.0.0.1 (checked, allowed in sandbox) and 127.0.0.2 (what the name
    // answers from the second lookup on). A second lookup at connect time would reach the latter.
    const secondHits: string[] = [];
    const second = createHttpServer((req, res) => {
      secondHits.push(req.url ?? "");
      res.end("rebound");
    });
    await new Promise<void>((resolve, reject) => second.once("error", reject).listen(internal.port, "127.0.0.2", () => resolve()));
    let lookups = 0;
    resolver.lookup = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    };
    try {
      internal.script("/rebind", () => ({ status: 200, body: "checked one" }));
      const { delivery } = await deliverTo("sandbox", `http://rebinding.example:${internal.port}/rebind`);
      expect(delivery).toMatchObject({ response_status: 200, response_body_excerpt: "checked one", error: null });
      expect(lookups).toBe(1);
      expect(internal.received("/rebind")).toHaveLength(1);
      expect(secondHits).toHaveLength(0);
    } finally {
      await new Promise((r) => second.close(r));
      resolver.lookup = async (host) => {
        const answer = fakeDns.get(host);
        if (!answer) throw Object.assign(new Error(`no fake DNS entry for ${host}`), { code: "ENOTFOUND" });
        return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      };
    }
  });

  it("keeps the excerpt of an allowed destination (sandbox loopback), with the status as its error code", async () => {
    internal.script("/teapot", () => ({ status: 418, body: "short and stout" }));
    const { delivery } = await deliverTo("sandbox", `http://127.0.0.1:${internal.port}/teapot`);
    expect(delivery).toMatchObject({ response_status: 418, response_body_excerpt: "short and stout", error: "http_418" });
  });

  it("cannot tell an open port from a closed one (sandbox loopback over https; live through an operator-allowed name)", async () => {
    const stored = async (env: "sandbox" | "live", host: string, port: number) => {
      const { webhookId, messageId, delivery } = await deliverTo(env, `https://${host}:${port}/`);
      const seen = JSON.parse(await attemptsSeenByTenant(env, webhookId, messageId));
      return { status: delivery.response_status, excerpt: delivery.response_body_excerpt, error: delivery.error, seen: seen.data ?? seen };
    };
    const open1 = await stored("sandbox", "127.0.0.1", (plainTcp.address() as AddressInfo).port); // open, speaks no TLS
    const open2 = await stored("sandbox", "127.0.0.1", internal.port); // plain HTTP, no TLS
    const closed = await stored("sandbox", "127.0.0.1", closedPort);
    fakeDns.set(ALLOWED_NAME, ["127.0.0.1"]);
    const liveOpen = await stored("live", ALLOWED_NAME, internal.port);
    const liveClosed = await stored("live", ALLOWED_NAME, closedPort);
    for (const r of [open1, open2, closed, liveOpen, liveClosed]) expect(r).toMatchObject({ status: null, excerpt: null, error: "connect_failed" });
    for (const r of [open1, open2, closed, liveOpen, liveClosed]) expect(JSON.stringify(r.seen)).not.toMatch(/SSL|ECONN|EPROTO|socket|OpenSSH/i);
  });
});
