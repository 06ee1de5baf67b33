import { randomUUID } from "node:crypto";
import { subscribes } from "./subscriptions.js";
import type { Database, Queryable } from "../../db/db.js";
import { EVENTS_CHANNEL, type EventRecord } from "../../db/repositories/events.js";
import {
  claimUndispatchedEvents,
  enabledSubscriptions,
  environmentNames,
  insertMessages,
  markEventsDispatched,
  newestActiveEncryptionKey,
  orphanMessages,
  takeStartBudget,
  WEBHOOK_BUDGET_CHANNEL,
  type NewMessage,
} from "../../db/repositories/webhook-delivery.js";
import { DomainError } from "../../errors.js";
import type { Deps } from "../deps.js";
import { encryptSensitiveFields } from "./encryption.js";
import { buildEnvelope } from "./messages.js";

/**
 * The transactional-outbox relay, run by the worker role. Every change commits its event with it
 * (src/domain/audit/audit.ts); this turns undispatched events into webhook messages, one per enabled
 * endpoint of the environment subscribed to the event name, and starts a delivery workflow per message.
 *
 * - Woken by NOTIFY on `sigil_events` (sent at commit) on a dedicated connection, and polling as a fallback
 *   (a lost notification, a dropped LISTEN connection, events written while no dispatcher ran).
 * - A batch is claimed with FOR UPDATE SKIP LOCKED: any number of dispatchers can run side by side.
 * - Messages and `dispatched_at` commit together (ON CONFLICT DO NOTHING makes a repeat harmless). The
 *   messages then wait for the running budget (per environment and per endpoint, fairness between tenants):
 *   taking a message into it records `workflow_started_at`, and its workflow starts after that commit. A
 *   crash in between leaves started messages whose workflow never ran: the sweep restarts those (a start of
 *   an existing workflow id joins it, a finished one is never repeated).
 * - Client events (source 'client') are never delivered to webhooks: they are only marked dispatched.
 */
export interface Dispatcher {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs one dispatch pass now (and returns the number of messages created); used by tests and the bench. */
  drain(): Promise<number>;
}

const BATCH = 200;
const START_CONCURRENCY = 32;
/** Waiting messages started per pass at most (the pass repeats every dispatcherPollMs). */
const START_BATCH = 500;
const BUDGET_KICK_MS = 100;

type DispatcherDeps = Pick<Deps, "db" | "flows" | "log" | "config">;

export interface DispatcherOptions {
  /**
   * Only these environments (read at every pass). Tests share one database between many apps, each with its
   * own sealing key and task queue: each app dispatches only the tenants it made. Production leaves it unset.
   */
  environmentIds?: () => string[];
}

export function createDispatcher(deps: DispatcherDeps, opts: DispatcherOptions = {}): Dispatcher {
  const { db, log } = deps;
  const settings = deps.config.webhooks;
  let stopped = true;
  let pollTimer: NodeJS.Timeout | undefined;
  let listener: Awaited<ReturnType<Database["connect"]>> | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  /** The running pass, and whether another was asked for meanwhile (one pass at a time per process). */
  let running: Promise<number> | undefined;
  let again = false;
  let lastSweep = 0;

  async function startWorkflows(messages: { id: string; environmentId: string }[]): Promise<void> {
    let next = 0;
    // Messages not started are left pending without a workflow: the sweep starts them later. So a stop (a
    // shutdown must not wait for a backlog) or an engine that is down ends the batch between messages.
    let engineDown = false;
    const lane = async () => {
      while (next < messages.length && !stopped && !engineDown) {
        const m = messages[next++]!;
        try {
          await deps.flows.startWebhookDelivery({ environmentId: m.environmentId, messageId: m.id });
        } catch (err) {
          if (err instanceof DomainError && err.kind === "unavailable") {
            if (!engineDown) log.warn("webhook delivery starts paused: workflow engine unavailable", { left: messages.length - next + 1 });
            engineDown = true;
            continue;
          }
          log.warn("webhook delivery start failed", { messageId: m.id, error: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, messages.length) }, lane));
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

  /**
   * Starts the workflows of waiting messages within the running budget (maxRunningPerEnvironment and
   * maxRunningPerEndpoint), oldest first and round-robin across environments: a tenant's burst waits in
   * Postgres instead of flooding Temporal, and the next pass starts more as earlier deliveries finish.
   */
  async function startWaiting(): Promise<number> {
    const chosen = await db.tx((t) =>
      takeStartBudget(t, {
        maxPerEnvironment: settings.maxRunningPerEnvironment,
        maxPerEndpoint: settings.maxRunningPerEndpoint,
        limit: START_BATCH,
        environmentIds: opts.environmentIds?.(),
      }),
    );
    if (chosen.length) await startWorkflows(chosen);
    return chosen.length;
  }

  /** One batch: claim, fan out, mark dispatched, commit (the messages wait for the budget). */
  async function dispatchBatch(): Promise<{ events: number; messages: number }> {
    const { events, created } = await db.tx(async (t) => {
      const events = await claimUndispatchedEvents(t, BATCH, opts.environmentIds?.());
      if (!events.length) return { events, created: [] as NewMessage[] };
      const created = await insertMessages(t, await buildMessages(t, events));
      await markEventsDispatched(
        t,
        events.map((e) => e.id),
      );
      return { events, created };
    });
    return { events: events.length, messages: created.length };
  }

  /**
   * Messages started within the budget whose workflow never ran (a crash between the start's commit and the
   * start, Temporal unreachable). Messages waiting for budget are not orphans: the sweep never starts those.
   */
  async function sweep(): Promise<number> {
    const orphans = await orphanMessages(db, settings.orphanAfterMs, 500, opts.environmentIds?.());
    if (orphans.length) {
      log.info("restarting webhook deliveries that never started", { count: orphans.length });
      await startWorkflows(orphans);
    }
    return orphans.length;
  }

  async function pass(): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await dispatchBatch();
      total += r.messages;
      if (r.events < BATCH || stopped) break;
      // A long backlog of events: start what the budget allows between batches too.
      if (r.messages) await startWaiting();
    }
    // Every pass: new messages, and earlier deliveries may have finished and freed budget.
    if (!stopped) await startWaiting();
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

  // A delivery finished somewhere (NOTIFY from a trigger at its commit): start waiting messages soon. At most
  // one pass per BUDGET_KICK_MS for these, however many deliveries finish meanwhile.
  let budgetTimer: NodeJS.Timeout | undefined;
  const budgetFreed = () => {
    if (budgetTimer || stopped) return;
    budgetTimer = setTimeout(() => {
      budgetTimer = undefined;
      kick();
    }, BUDGET_KICK_MS);
    budgetTimer.unref();
  };

  async function listen(): Promise<void> {
    if (stopped) return;
    try {
      const conn = await db.connect({ direct: true });
      listener = conn;
      conn.client.on("notification", (msg) => {
        if (msg.channel === EVENTS_CHANNEL) kick();
        else if (msg.channel === WEBHOOK_BUDGET_CHANNEL) budgetFreed();
      });
      conn.client.on("error", (err) => {
        log.warn("webhook dispatcher lost its LISTEN connection", { error: String(err) });
        relisten();
      });
      conn.client.on("end", () => relisten());
      await conn.none("LISTEN $1:name", [EVENTS_CHANNEL]);
      await conn.none("LISTEN $1:name", [WEBHOOK_BUDGET_CHANNEL]);
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
      if (budgetTimer) clearTimeout(budgetTimer);
      budgetTimer = undefined;
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
