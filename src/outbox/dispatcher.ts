import { randomUUID } from "node:crypto";
import type { Database, Queryable } from "../db/db.js";
import { EVENTS_CHANNEL, type EventRecord } from "../db/repositories/events.js";
import {
  claimUndispatchedEvents,
  enabledSubscriptions,
  endpointsWithUnseenMessages,
  environmentNames,
  insertMessages,
  markEventsDispatched,
  newestActiveEncryptionKey,
  type NewMessage,
} from "../db/repositories/webhook-outbox.js";
import type { Deps } from "../domain/deps.js";
import { encryptSensitiveFields } from "../domain/webhooks/encryption.js";
import { buildEnvelope } from "../domain/webhooks/messages.js";
import { subscribes } from "../domain/webhooks/subscriptions.js";

/**
 * The transactional-outbox relay, run by the worker role: infrastructure (a long-running loop with its own
 * LISTEN connection, timers and a workflow client), so it lives beside src/temporal rather than in the
 * domain; the domain parts it uses (subscriptions, envelopes, encryption) stay in src/domain/webhooks.
 * Every change commits its event with it (src/domain/audit/audit.ts); this turns undispatched events into
 * webhook messages, one per enabled endpoint of the environment subscribed to the event name, and wakes the
 * delivery actor of each endpoint that got messages (src/workflows/webhook-endpoint.ts).
 *
 * - Woken by NOTIFY on `sigil_events` (sent at commit; those of 25 ms share a pass) on a dedicated
 *   connection, and polling as a fallback (a lost notification, a dropped LISTEN connection, events written
 *   while no dispatcher ran).
 * - A batch is claimed with FOR UPDATE SKIP LOCKED: any number of dispatchers can run side by side.
 * - Messages and `dispatched_at` commit together (ON CONFLICT DO NOTHING makes a repeat harmless); the
 *   actors are woken after that commit, one signal per endpoint and batch, not one workflow per message. A
 *   crash in between leaves messages no actor has seen: the sweep wakes their actors again (waking a running
 *   actor is harmless, a finished one starts again).
 * - Client events (source 'client') are never delivered to webhooks: they are only marked dispatched.
 */
export interface Dispatcher {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs a dispatch pass now, or joins the running one (returns the number of messages created). */
  drain(): Promise<number>;
}

const BATCH = 200;
/**
 * Notifications within this window after the first share one pass: under a few hundred sign-ins a second a
 * pass per event cost the worker more in its statements (claim, subscriptions, names, mark) than the events
 * did; gathered, a pass takes what 25 ms brought. Webhooks go out at most that much after their event.
 */
const GATHER_MS = 25;
/** Endpoints whose unseen messages the sweep wakes per pass at most. */
const SWEEP_BATCH = 500;

type DispatcherDeps = Pick<Deps, "db" | "flows" | "log" | "config">;

/**
 * The relay of one deployment: every event of its database. (A deployment is one database, one set of sealing
 * keys and one task queue; the test apps are deployments too, each with its own database: test/support/app.ts.)
 */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { db, log } = deps;
  const settings = deps.config.webhooks;
  let stopped = true;
  let pollTimer: NodeJS.Timeout | undefined;
  let gatherTimer: NodeJS.Timeout | undefined;
  let listener: Awaited<ReturnType<Database["connect"]>> | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  /** The running pass, and whether another was asked for meanwhile (one pass at a time per process). */
  let running: Promise<number> | undefined;
  let again = false;
  let lastSweep = 0;

  /** Wakes the endpoints' actors; a failure is logged and left to the sweep (the messages are stored). */
  async function wake(endpoints: { environmentId: string; webhookId: string }[]): Promise<void> {
    if (!endpoints.length || stopped) return;
    try {
      await deps.flows.wakeWebhookEndpoints(endpoints);
    } catch (err) {
      log.warn("could not wake webhook endpoint actors; the sweep will retry", { endpoints: endpoints.length, error: String(err) });
    }
  }

  async function buildMessages(t: Queryable, events: EventRecord[]): Promise<NewMessage[]> {
    const service = events.filter((e) => e.source === "service");
    const envIds = [...new Set(service.map((e) => e.environmentId))];
    const [subs, names] = await Promise.all([enabledSubscriptions(t, envIds), environmentNames(t, envIds)]);
    const keys = new Map<string, Awaited<ReturnType<typeof newestActiveEncryptionKey>>>();
    const messages: NewMessage[] = [];
    for (const e of service) {
      const targets = subs.filter((s) => s.environmentId === e.environmentId && subscribes(s.eventNames, e.eventName));
      if (!targets.length) continue;
      if (!keys.has(e.environmentId)) keys.set(e.environmentId, await newestActiveEncryptionKey(t, e.environmentId));
      const key = keys.get(e.environmentId) ?? null;
      // Encrypted once per event: every endpoint gets the same ciphertext.
      const enc = key ? await encryptSensitiveFields(e.eventName, e.data ?? {}, key) : { data: e.data ?? {}, encrypted: false };
      for (const s of targets) {
        const id = randomUUID();
        const payload = buildEnvelope(
          { webhookId: s.webhookId, environmentId: e.environmentId, environmentName: names.get(e.environmentId) ?? "" },
          id,
          { ...e, data: enc.data },
          enc.encrypted && key ? { kid: key.kid } : {},
        );
        messages.push({ id, environmentId: e.environmentId, webhookId: s.webhookId, eventId: e.id, eventName: e.eventName, payload });
      }
    }
    return messages;
  }

  /** One batch: claim, fan out, mark dispatched, commit, then wake the endpoints that got messages. */
  async function dispatchBatch(): Promise<{ events: number; messages: number }> {
    const { events, created } = await db.tx(async (t) => {
      const events = await claimUndispatchedEvents(t, BATCH);
      if (!events.length) return { events, created: [] as NewMessage[] };
      const created = await insertMessages(t, await buildMessages(t, events));
      await markEventsDispatched(
        t,
        events.map((e) => e.id),
      );
      return { events, created };
    });
    await wake(created.map((m) => ({ environmentId: m.environmentId, webhookId: m.webhookId })));
    return { events: events.length, messages: created.length };
  }

  /** Endpoints with messages that no actor took in time (a crash between commit and wake, engine down). */
  async function sweep(): Promise<number> {
    const endpoints = await endpointsWithUnseenMessages(db, settings.orphanAfterMs, SWEEP_BATCH);
    if (endpoints.length) {
      log.info("waking webhook endpoint actors of messages nobody took", { count: endpoints.length });
      await wake(endpoints);
    }
    return endpoints.length;
  }

  async function pass(): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await dispatchBatch();
      total += r.messages;
      if (r.events < BATCH || stopped) break;
    }
    if (!stopped && Date.now() - lastSweep >= Math.min(settings.dispatcherPollMs, settings.orphanAfterMs)) {
      lastSweep = Date.now();
      await sweep();
    }
    return total;
  }

  /** Runs a pass, or asks the running one to go again when it is done. */
  function drain(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          total += await pass();
        } while (again && !stopped);
      } finally {
        running = undefined;
      }
      return total;
    })();
    return running;
  }

  const kick = () => {
    drain().catch((err) => log.warn("webhook dispatch failed", { error: String(err) }));
  };

  const kickSoon = () => {
    if (gatherTimer || stopped) return;
    gatherTimer = setTimeout(() => {
      gatherTimer = undefined;
      kick();
    }, GATHER_MS);
  };

  async function listen(): Promise<void> {
    if (stopped) return;
    try {
      const conn = await db.connect({ direct: true });
      listener = conn;
      conn.client.on("notification", (msg) => {
        if (msg.channel === EVENTS_CHANNEL) kickSoon();
      });
      conn.client.on("error", (err) => {
        log.warn("webhook dispatcher lost its LISTEN connection", { error: String(err) });
        relisten();
      });
      conn.client.on("end", () => relisten());
      await conn.none("LISTEN $1:name", [EVENTS_CHANNEL]);
    } catch (err) {
      log.warn("webhook dispatcher could not LISTEN; polling only until it can", { error: String(err) });
      relisten();
    }
  }

  function relisten() {
    const old = listener;
    listener = undefined;
    if (old) {
      try {
        void Promise.resolve(old.done(true)).catch(() => {});
      } catch {
        // already released
      }
    }
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void listen();
    }, 2000);
    reconnectTimer.unref();
  }

  return {
    async start() {
      if (!stopped) return;
      stopped = false;
      await listen();
      pollTimer = setInterval(kick, settings.dispatcherPollMs);
      pollTimer.unref();
      kick();
    },
    async stop() {
      stopped = true;
      if (pollTimer) clearInterval(pollTimer);
      if (gatherTimer) clearTimeout(gatherTimer);
      gatherTimer = undefined;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      const l = listener;
      listener = undefined;
      if (l) {
        l.client.removeAllListeners("end");
        l.client.removeAllListeners("error");
        l.client.on("error", () => {});
        await l.none("UNLISTEN *").catch(() => {});
        await Promise.resolve(l.done(true)).catch(() => {});
      }
      await running?.catch(() => {});
    },
    drain,
  };
}
