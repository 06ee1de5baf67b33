/**
 * The WaaS durability trials: refresh, reshare, export and backup of threshold wallets through the published
 * client while the worker process is killed with SIGKILL at a random moment, and signatures and new wallets
 * (made on the request path, in the api) while the api process is killed so; then the invariants checked. Used by bench/waas-durability.ts (20 trials each, the table in docs/reliability.md) and by
 * test/e2e/waas-durability.test.ts (1 trial each, so CI keeps the harness honest). One copy, here.
 *
 * Sigil runs as `sigil start api` and `sigil start worker`, each its own process, on a database, sealing keys
 * and task queue of the rig's own (bench/support/deps.ts), against the real Postgres, Redis and Temporal.
 *
 * A batch is one trial of several operations on fresh wallets (made before the kill window) and one kill:
 * each trial draws its own kill moment u in [0, 1.5 × the operation's normal duration] and starts u before
 * the kill, so one SIGKILL lands at an independent uniform moment of every trial of the batch. A new worker
 * starts after a random pause of 0 to 1 s. A device whose call failed or timed out reads the outcome from the
 * room (refresh, reshare, export: the room is the protocol's record, and a second export with the same id is
 * refused by design); a backup call is retried as is (a newer backup of the same epoch replaces the older).
 * A signature's or a new wallet's device retries what got no answer once the api is back: a signing room
 * that is still open takes the same part again (the killed transaction left nothing), a createWaasAccount is
 * sent again with the same keygen ids (it answers the first one's wallet, never a second).
 */
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import { compactDecrypt, type JWK } from "jose";
import { recoverMessageAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signInWith } from "../../src/domain/sign-in/pipeline.js";
import type { PublicEnvironment } from "../../src/domain/tenancy/access.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { benchDeployment } from "./deps.js";
import type { BenchServers } from "./env.js";
import { startSigil, type Running } from "./processes.js";
import { BENCH_SCRYPT_N, TestDevice, type RoomView } from "../../test/support/waas-device.js";

/**
 * The published client's calls the trials make. Its declaration files re-export without file extensions,
 * which the root tsconfig's NodeNext resolution cannot follow (test/tsconfig.json uses Bundler for that), so
 * the bench names the calls it uses; at run time this is the unchanged SDKApi of @dynamic-labs/sdk-api.
 */
interface PublishedClient {
  createWaasAccount(p: { environmentId: string; createWaasAccountRequest: Record<string, unknown> }, init?: RequestInit): Promise<{ roomId: string; walletId?: string }>;
  refreshKeyShares(p: { environmentId: string; walletId: string }, init?: RequestInit): Promise<{ roomId: string }>;
  reshare(p: { environmentId: string; walletId: string; reshareRequest: Record<string, unknown> }, init?: RequestInit): Promise<{ roomId: string }>;
  exportPrivateKey(p: { environmentId: string; walletId: string; exportWaasWalletPrivateKeyRequest: { exportId: string } }, init?: RequestInit): Promise<{ roomId: string }>;
  backupKeyShares(p: { environmentId: string; walletId: string; backupMultipleClientKeySharesRequest: Record<string, unknown> }, init?: RequestInit): Promise<unknown>;
  signMessage(p: { environmentId: string; walletId: string; signMessageWithWaasRequest: { message: string } }, init?: RequestInit): Promise<{ roomId: string }>;
}
interface PublishedModule {
  SDKApi: new (configuration: unknown) => PublishedClient;
  Configuration: new (parameters: { basePath: string; accessToken: string; headers: Record<string, string> }) => unknown;
}
const published = (await import("@dynamic-labs/sdk-api")) as unknown as PublishedModule;

export const OPERATIONS = ["refresh", "reshare", "export", "backup", "sign", "keygen"] as const;
export type Operation = (typeof OPERATIONS)[number];
/** What runs where: the actor's operations in the worker, signatures and new wallets in the api's requests. */
export const ACTOR_OPERATIONS = ["refresh", "reshare", "export", "backup"] as const satisfies readonly Operation[];
export const REQUEST_PATH_OPERATIONS = ["sign", "keygen"] as const satisfies readonly Operation[];
const onRequestPath = (op: Operation) => (REQUEST_PATH_OPERATIONS as readonly Operation[]).includes(op);
type Scheme = "TWO_OF_TWO" | "TWO_OF_THREE";

export interface TrialResult {
  operation: Operation;
  trial: number;
  /** When the worker (actor operations) or the api (signatures, new wallets) was killed, ms after the operation's first call. */
  killAtMs: number;
  /** Some activity of the operation ran a second attempt (the kill landed inside it). */
  killedInsideActivity: boolean;
  /** done: the operation finished; refused: it failed cleanly (the room says why); stuck: neither in time. */
  outcome: "done" | "refused" | "stuck";
  /** How the device learnt the outcome: the call's answer, the room read after the call failed, a retried call. */
  learntFrom: "answer" | "room" | "retry";
  completionMs: number;
  violations: string[];
}

/** A fresh user and wallet, made before the kill window, with the device that holds its shares. */
interface Subject {
  operation: Operation;
  trial: number;
  jwt: string;
  sdk: PublishedClient;
  walletId: string;
  address: string;
  scheme: Scheme;
  device: TestDevice;
}

/** The outcome of running one operation, before the checks. */
interface Ran {
  outcome: TrialResult["outcome"];
  learntFrom: TrialResult["learntFrom"];
  room?: RoomView;
  /** The device that should sign afterwards (the new shares after a finished refresh/reshare). */
  signer: TestDevice;
  exportId?: string;
  exportKey?: { open(jwe: string): Promise<Record<string, string>> };
  /** sign: the message and the signature answered; keygen: the new wallet (its device holds the shares). */
  signed?: { message: string; signature: string; roomId: string };
  created?: { walletId: string; address: string; device: TestDevice };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a device waits for an answer before it reads the room instead (a worker restart takes ~10-20 s). */
const CALL_TIMEOUT_MS = 45_000;
/** How long an outcome may take after the kill before the trial counts as stuck. */
const OUTCOME_DEADLINE_MS = 120_000;

export interface Rig {
  /** One run of each operation without a kill: its normal duration (ms), which sets the kill window. */
  calibrate(operations?: readonly Operation[]): Promise<Record<Operation, number>>;
  /**
   * One batch: one trial of each given operation, one SIGKILL, a new process, the checks: the worker's for
   * actor operations, the api's for signatures and new wallets (a batch is one kind or the other). The kill
   * lands at a uniform moment in [0, window × the operation's normal duration] of each trial (default 1.5).
   */
  batch(trials: { operation: Operation; trial: number }[], normalMs: Record<Operation, number>, window?: number): Promise<TrialResult[]>;
  stop(): Promise<void>;
}

/** A rig on the servers given (a test run's), else on those the bench's environment names. */
export async function startRig(opts: { port: number; log?: (line: string) => void; servers?: BenchServers }): Promise<Rig> {
  const log = opts.log ?? (() => {});
  const { database, childEnv, deps } = await benchDeployment(
    "waas-durability",
    // Both processes must seal and open backups with the same key (unset, each would write its own file).
    { SIGIL_BACKUP_SEALING_KEYS: `durability:${randomBytes(32).toString("base64")}` },
    opts.servers,
  );
  const running: Running[] = [];
  let temporal: Connection | undefined;
  const stop = async () => {
    for (const r of running.reverse()) await r.stop();
    await temporal?.close();
    await deps.close();
    await database.drop();
  };
  try {
    const tenant = await bootstrapTenant(deps.db);
    const env = tenant.environmentId;
    const publicEnv: PublicEnvironment = { environmentId: env, environmentName: "sandbox", projectId: tenant.projectId, organizationId: tenant.organizationId };
    let worker = await startSigil("worker", opts.port + 1, [], childEnv);
    running.push(worker);
    let api = await startSigil("api", opts.port, [], childEnv);
    running.push(api);
    temporal = await Connection.connect({ address: childEnv.TEMPORAL_ADDRESS });
    const client = new Client({ connection: temporal, namespace: process.env.TEMPORAL_NAMESPACE || "default" });

    async function relay<T = RoomView>(jwt: string, method: "GET" | "POST", route: string, body?: unknown, timeoutMs = CALL_TIMEOUT_MS): Promise<{ status: number; body: T }> {
      const r = await fetch(`${api.base}/api/v0/sdk/${env}/waas${route}`, {
        method,
        headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: r.status, body: (await r.json().catch(() => undefined)) as T };
    }
    const room = async (s: Subject, roomId: string) => {
      const r = await relay(s.jwt, "GET", `/rooms/${roomId}`);
      if (r.status !== 200) throw new Error(`GET room ${roomId}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };

    /** The room's outcome once it has one: the answer, or (the call failed or timed out) the room read until it is final. */
    async function contribute(s: Subject, roomId: string, contribution: Record<string, unknown>): Promise<Pick<Ran, "outcome" | "learntFrom" | "room">> {
      try {
        const r = await relay(s.jwt, "POST", `/rooms/${roomId}/contribution`, { contribution });
        if (r.status === 200) return { outcome: "done", learntFrom: "answer", room: r.body };
        if (r.status === 422 || r.status === 409) return { outcome: "refused", learntFrom: "answer", room: await room(s, roomId) };
      } catch {
        // timed out or the connection broke: the device reads the room, as a real one would
      }
      const deadline = Date.now() + OUTCOME_DEADLINE_MS;
      for (;;) {
        const r = await room(s, roomId).catch(() => undefined);
        if (r?.status === "done") return { outcome: "done", learntFrom: "room", room: r };
        if (r?.status === "failed") return { outcome: "refused", learntFrom: "room", room: r };
        if (Date.now() > deadline) return { outcome: "stuck", learntFrom: "room", ...(r ? { room: r } : {}) };
        await sleep(500);
      }
    }

    /** createWaasAccount (the keygen room runs inside the call), the device's shares opened and checked. */
    async function subject(operation: Operation, trial: number): Promise<Subject> {
      const meta = { ipAddress: "127.0.0.1", userAgent: "durability", requestId: "" };
      const s = await signInWith(deps, publicEnv, { kind: "email", email: `durability-${randomUUID()}@bench.example.com` }, meta);
      const jwt = s.tokens.jwt;
      const sdk = new published.SDKApi(new published.Configuration({ basePath: `${api.base}/api/v0`, accessToken: jwt, headers: { Authorization: `Bearer ${jwt}` } }));
      // Reshare alternates 2-of-2 -> 2-of-3 and 2-of-3 -> 2-of-2.
      const scheme: Scheme = operation === "reshare" && trial % 2 === 1 ? "TWO_OF_THREE" : "TWO_OF_TWO";
      const device = new TestDevice("bench", BENCH_SCRYPT_N);
      const opened = await sdk.createWaasAccount({
        environmentId: env,
        createWaasAccountRequest: { chain: "EVM", clientKeygenIds: device.keygenIds(scheme === "TWO_OF_TWO" ? 1 : 2), thresholdSignatureScheme: scheme },
      });
      const partial: Subject = { operation, trial, jwt, sdk, walletId: opened.walletId!, address: "", scheme, device };
      const made = await room(partial, opened.roomId);
      if (made.status !== "done") throw new Error(`keygen room ${made.status}`);
      await device.receive(made.result!.shareSet);
      return { ...partial, address: made.result!.address as string };
    }

    /** The operation through the published client and the room relay, as a device drives it. */
    async function run(s: Subject): Promise<Ran> {
      const init = { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) };
      if (s.operation === "refresh") {
        const opened = await s.sdk.refreshKeyShares({ environmentId: env, walletId: s.walletId }, init);
        const r = await contribute(s, opened.roomId, await s.device.sharesContribution(await room(s, opened.roomId)));
        // The new shares come to the same keygen keys: a copy of the device takes them, the old shares stay for the check.
        return { ...r, signer: await received(r, Object.assign(Object.create(TestDevice.prototype) as TestDevice, s.device), s.device) };
      }
      if (s.operation === "reshare") {
        const next = new TestDevice("bench", BENCH_SCRYPT_N);
        const to: Scheme = s.scheme === "TWO_OF_TWO" ? "TWO_OF_THREE" : "TWO_OF_TWO";
        const opened = await s.sdk.reshare(
          {
            environmentId: env,
            walletId: s.walletId,
            reshareRequest: { clientKeygenIds: next.keygenIds(to === "TWO_OF_TWO" ? 1 : 2), oldThresholdSignatureScheme: s.scheme, newThresholdSignatureScheme: to },
          },
          init,
        );
        const r = await contribute(s, opened.roomId, await s.device.sharesContribution(await room(s, opened.roomId)));
        return { ...r, signer: await received(r, next, s.device) };
      }
      if (s.operation === "export") {
        const exportId = `durability-${randomUUID()}`;
        const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
        const opened = await s.sdk.exportPrivateKey({ environmentId: env, walletId: s.walletId, exportWaasWalletPrivateKeyRequest: { exportId } }, init);
        const part = { ...(await s.device.sharesContribution(await room(s, opened.roomId))), exportKey: publicKey.export({ format: "jwk" }) as JWK };
        const r = await contribute(s, opened.roomId, part);
        const open = async (jwe: string) => JSON.parse(new TextDecoder().decode((await compactDecrypt(jwe, privateKey)).plaintext)) as Record<string, string>;
        return { ...r, signer: s.device, exportId, exportKey: { open } };
      }
      if (s.operation === "sign") return { ...(await signThrough(s)), signer: s.device };
      if (s.operation === "keygen") return { ...(await keygenThrough(s)), signer: s.device };
      // backup: a synchronous call; one that failed or timed out is retried as is, until the deadline.
      const deadline = Date.now() + OUTCOME_DEADLINE_MS;
      for (let attempt = 0; ; attempt++) {
        try {
          await s.sdk.backupKeyShares(
            { environmentId: env, walletId: s.walletId, backupMultipleClientKeySharesRequest: { encryptedAccountCredentials: [`credential-${s.walletId}`], passwordEncrypted: true } },
            { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
          );
          return { outcome: "done", learntFrom: attempt === 0 ? "answer" : "retry", signer: s.device };
        } catch (err) {
          const status = (err as { response?: Response }).response?.status;
          if (status !== undefined && status < 500) return { outcome: "refused", learntFrom: attempt === 0 ? "answer" : "retry", signer: s.device };
          if (Date.now() > deadline) return { outcome: "stuck", learntFrom: "retry", signer: s.device };
          await sleep(500);
        }
      }
    }

    /** Retries `call` while the api is down (connection refused or reset, 5xx), until the deadline. */
    async function untilAnswered<T>(call: () => Promise<T>, deadline: number): Promise<{ value: T; retried: boolean } | null> {
      for (let attempt = 0; ; attempt++) {
        try {
          return { value: await call(), retried: attempt > 0 };
        } catch (err) {
          const status = (err as { response?: Response }).response?.status;
          if (status !== undefined && status < 500) throw err;
          if (Date.now() > deadline) return null;
          await sleep(250);
        }
      }
    }
    const relayAnswer = async (s: Subject, method: "GET" | "POST", route: string, body?: unknown) => {
      const r = await relay(s.jwt, method, route, body);
      if (r.status >= 500) throw Object.assign(new Error(`${r.status}`), { response: { status: r.status } });
      return r;
    };

    /**
     * A signature as a device makes it while the api may die: signMessage until answered (a new room each
     * time it got no answer), the part posted; no answer, the room read: done (the signature), failed, or
     * still open (the killed transaction left nothing) and the same part posted again.
     */
    async function signThrough(s: Subject): Promise<Pick<Ran, "outcome" | "learntFrom" | "room" | "signed">> {
      const deadline = Date.now() + OUTCOME_DEADLINE_MS;
      const message = `durability sign ${s.trial} ${randomUUID()}`;
      const opened = await untilAnswered(() => s.sdk.signMessage({ environmentId: env, walletId: s.walletId, signMessageWithWaasRequest: { message } }, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }), deadline);
      if (!opened) return { outcome: "stuck", learntFrom: "retry" };
      const roomId = opened.value.roomId;
      const view = await untilAnswered(() => relayAnswer(s, "GET", `/rooms/${roomId}`), deadline);
      if (!view) return { outcome: "stuck", learntFrom: "retry" };
      const part = await s.device.sharesContribution(view.value.body);
      let learntFrom: TrialResult["learntFrom"] = opened.retried || view.retried ? "retry" : "answer";
      for (;;) {
        const posted = await relayAnswer(s, "POST", `/rooms/${roomId}/contribution`, { contribution: part }).catch(() => undefined);
        if (posted?.status === 200) return { outcome: "done", learntFrom, room: posted.body, signed: { message, signature: posted.body.result!.signature as string, roomId } };
        const read = await untilAnswered(() => relayAnswer(s, "GET", `/rooms/${roomId}`), deadline);
        if (!read) return { outcome: "stuck", learntFrom: "room" };
        const r = read.value.body;
        if (r.status === "done") return { outcome: "done", learntFrom: "room", room: r, signed: { message, signature: r.result!.signature as string, roomId } };
        if (r.status === "failed") return { outcome: "refused", learntFrom: "room", room: r };
        if (r.status !== "open" || Date.now() > deadline) return { outcome: "stuck", learntFrom: "room", room: r };
        learntFrom = "retry";
      }
    }

    /** A new wallet as a device makes it while the api may die: createWaasAccount sent again (same keygen ids) until answered. */
    async function keygenThrough(s: Subject): Promise<Pick<Ran, "outcome" | "learntFrom" | "room" | "created">> {
      const deadline = Date.now() + OUTCOME_DEADLINE_MS;
      const device = new TestDevice("bench", BENCH_SCRYPT_N);
      const request = { chain: "EVM", clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" };
      const opened = await untilAnswered(() => s.sdk.createWaasAccount({ environmentId: env, createWaasAccountRequest: request }, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }), deadline);
      if (!opened) return { outcome: "stuck", learntFrom: "retry" };
      const read = await untilAnswered(() => relayAnswer(s, "GET", `/rooms/${opened.value.roomId}`), deadline);
      if (!read) return { outcome: "stuck", learntFrom: "room" };
      const r = read.value.body;
      const learntFrom = opened.retried ? "retry" : "answer";
      if (r.status !== "done") return { outcome: r.status === "failed" ? "refused" : "stuck", learntFrom, room: r };
      await device.receive(r.result!.shareSet);
      return { outcome: "done", learntFrom, room: r, created: { walletId: opened.value.walletId!, address: r.result!.address as string, device } };
    }

    /** After a finished refresh/reshare the device holds the new shares (opened and Feldman-checked); else the old. */
    async function received(r: Pick<Ran, "outcome" | "room">, next: TestDevice, old: TestDevice): Promise<TestDevice> {
      if (r.outcome !== "done") return old;
      await next.receive(r.room!.result!.shareSet);
      return next;
    }

    /** A signing room for an EIP-191 message with `device`'s shares: the signature, or null when refused. */
    async function signs(s: Subject, device: TestDevice, message: string): Promise<string | null> {
      const opened = await s.sdk.signMessage({ environmentId: env, walletId: s.walletId, signMessageWithWaasRequest: { message } });
      const r = await relay(s.jwt, "POST", `/rooms/${opened.roomId}/contribution`, { contribution: await device.sharesContribution(await room(s, opened.roomId)) });
      return r.status === 200 ? (r.body.result!.signature as string) : null;
    }

    /** Activity attempts beyond the first in the actor's (and an export's own) history: the kill hit a running step. */
    async function retriedInside(s: Subject, exportId?: string): Promise<boolean> {
      const ids = [workflowIds.waasWallet(s.walletId), ...(exportId ? [workflowIds.walletExport(s.walletId, exportId)] : [])];
      for (const id of ids) {
        const history = await client.workflow.getHandle(id).fetchHistory().catch(() => undefined);
        for (const e of history?.events ?? []) {
          if ((e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1 || e.activityTaskTimedOutEventAttributes) return true;
        }
      }
      return false;
    }

    /** The invariants after one trial: one current set, no pending set, the right shares sign, no double export or backup. */
    async function check(s: Subject, ran: Ran): Promise<string[]> {
      const violations: string[] = [];
      const count = (sql: string, args: unknown[]) => deps.db.one<{ n: number }>(sql, args).then((r) => r.n);
      if (ran.outcome === "stuck") violations.push(`no outcome within ${OUTCOME_DEADLINE_MS / 1000} s`);
      // The actor finishes the operation's last steps (destroying the retired set) after the room is answered.
      let pending = 1;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
        pending = await count("SELECT count(*)::int AS n FROM waas_share_sets WHERE wallet_id = $1 AND status = 'pending'", [s.walletId]);
        if (pending === 0) break;
      }
      if (pending !== 0) violations.push(`${pending} pending share set(s) left behind`);
      const current = await count("SELECT count(*)::int AS n FROM waas_share_sets WHERE wallet_id = $1 AND status = 'current'", [s.walletId]);
      if (current !== 1) violations.push(`${current} current share sets`);
      const message = `durability ${s.operation} ${s.trial}`;
      const signature = await signs(s, ran.signer, message);
      if (!signature) violations.push("the device's shares do not sign");
      else if ((await recoverMessageAddress({ message, signature: signature as `0x${string}` })) !== s.address) violations.push("the signature does not recover the wallet's address");
      if ((s.operation === "refresh" || s.operation === "reshare") && ran.outcome === "done" && (await signs(s, s.device, `${message} (old shares)`)) !== null) {
        violations.push("the old shares still sign");
      }
      if (s.operation === "sign") violations.push(...(await signChecks(s, ran)));
      if (s.operation === "keygen") violations.push(...(await keygenChecks(s, ran)));
      if (s.operation === "export") {
        const exported = await count("SELECT count(*)::int AS n FROM events WHERE resource_id = $1 AND event_name = 'wallet.exported'", [s.walletId]);
        const rooms = await count("SELECT count(*)::int AS n FROM waas_rooms WHERE wallet_id = $1 AND operation = 'export' AND request ->> 'exportId' = $2", [s.walletId, ran.exportId]);
        if (exported !== (ran.outcome === "done" ? 1 : 0)) violations.push(`${exported} wallet.exported events`);
        if (rooms !== 1) violations.push(`${rooms} export rooms for one export id`);
        if (ran.outcome === "done") {
          const key = await ran.exportKey!.open(ran.room!.result!.encryptedKey as string).catch(() => undefined);
          if (!key || privateKeyToAccount(`0x${key.privateKey}`).address !== s.address) violations.push("the exported key is not the wallet's");
        }
      }
      if (s.operation === "backup") {
        const doubled = await count(
          "SELECT count(*)::int AS n FROM (SELECT 1 FROM waas_share_backups WHERE wallet_id = $1 GROUP BY share_set_epoch, holder, location HAVING count(*) > 1) d",
          [s.walletId],
        );
        if (doubled) violations.push(`${doubled} (epoch, holder, location) with more than one backup`);
        const rows = await count("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [s.walletId]);
        if (ran.outcome === "done" && rows !== 2) violations.push(`${rows} backup rows (the server's share and the device's credential expected)`);
      }
      return violations;
    }

    /** No room of the user left half-done (taken but never finished); for each room that signed, one audit row and one event. */
    async function requestPathChecks(s: Subject, walletIds: string[]): Promise<string[]> {
      const violations: string[] = [];
      const count = (sql: string, args: unknown[]) => deps.db.one<{ n: number }>(sql, args).then((r) => r.n);
      const half = await count("SELECT count(*)::int AS n FROM waas_rooms WHERE wallet_id = ANY($1::uuid[]) AND status = 'contributed' AND operation IN ('sign', 'keygen', 'import')", [walletIds]);
      if (half) violations.push(`${half} room(s) left contributed (half-done)`);
      const signedRooms = await count("SELECT count(*)::int AS n FROM waas_rooms WHERE wallet_id = ANY($1::uuid[]) AND operation = 'sign' AND status = 'done'", [walletIds]);
      const audits = await count("SELECT count(*)::int AS n FROM audit_log WHERE resource_id = ANY($1::text[]) AND action = 'waas_wallet.message_signed'", [walletIds]);
      const events = await count("SELECT count(*)::int AS n FROM events WHERE resource_id = ANY($1::text[]) AND event_name = 'waas_wallet.message_signed'", [walletIds]);
      if (audits !== signedRooms || events !== signedRooms) violations.push(`${signedRooms} signatures made, ${audits} audit rows, ${events} events`);
      return violations;
    }

    async function signChecks(s: Subject, ran: Ran): Promise<string[]> {
      const violations = await requestPathChecks(s, [s.walletId]);
      if (ran.outcome === "done") {
        const { message, signature, roomId } = ran.signed!;
        if ((await recoverMessageAddress({ message, signature: signature as `0x${string}` })) !== s.address) violations.push("the answered signature does not recover the wallet's address");
        const audited = await deps.db.one<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'waas_wallet.message_signed' AND changes -> 'after' ->> 'roomId' = $1", [roomId]);
        if (audited.n !== 1) violations.push(`the answered signature has ${audited.n} audit rows`);
      }
      return violations;
    }

    async function keygenChecks(s: Subject, ran: Ran): Promise<string[]> {
      const userId = (await deps.db.one<{ user_id: string }>("SELECT user_id FROM waas_wallets WHERE id = $1", [s.walletId])).user_id;
      const wallets = await deps.db.map("SELECT id FROM waas_wallets WHERE user_id = $1", [userId], (r) => r.id as string);
      const violations = await requestPathChecks(s, wallets);
      // The subject's wallet and the one this trial made: two, never a third (a retried request doubling it).
      const expected = ran.outcome === "done" ? 2 : 1;
      if (wallets.length !== expected) violations.push(`${wallets.length} wallets for the user (${expected} expected)`);
      for (const id of wallets) {
        const whole = await deps.db.one<{ sets: number; creds: number; audits: number }>(
          `SELECT (SELECT count(*)::int FROM waas_share_sets WHERE wallet_id = $1 AND status = 'current') AS sets,
                  (SELECT count(*)::int FROM wallets WHERE id = $1) AS creds,
                  (SELECT count(*)::int FROM audit_log WHERE resource_id = $1::text AND action = 'waas_wallet.created') AS audits`,
          [id],
        );
        if (whole.sets !== 1 || whole.creds !== 1 || whole.audits !== 1) violations.push(`wallet ${id} is not whole: ${JSON.stringify(whole)}`);
      }
      if (ran.outcome === "done") {
        const made = ran.created!;
        const signature = await signs({ ...s, walletId: made.walletId }, made.device, "the new wallet signs");
        if (!signature || (await recoverMessageAddress({ message: "the new wallet signs", signature: signature as `0x${string}` })) !== made.address) violations.push("the new wallet's shares do not sign for its address");
      }
      return violations;
    }

    async function killApi(): Promise<void> {
      const dead = new Promise((r) => api.child.once("exit", r));
      process.kill(api.child.pid!, "SIGKILL");
      await dead;
      running.splice(running.indexOf(api), 1);
      await sleep(Math.random() * 1000);
      api = await startSigil("api", opts.port, [], childEnv);
      running.push(api);
    }

    async function killWorker(): Promise<void> {
      const dead = new Promise((r) => worker.child.once("exit", r));
      process.kill(worker.child.pid!, "SIGKILL");
      await dead;
      running.splice(running.indexOf(worker), 1);
      await sleep(Math.random() * 1000);
      worker = await startSigil("worker", opts.port + 1, [], childEnv);
      running.push(worker);
    }

    return {
      async calibrate(operations = OPERATIONS) {
        const normal = {} as Record<Operation, number>;
        for (const operation of operations) {
          // A first run warms the processes up (it took ~1 s against ~0.2 s after); the median of three is normal.
          const times: number[] = [];
          for (let i = 0; i < 4; i++) {
            const s = await subject(operation, 0);
            const started = Date.now();
            const ran = await run(s);
            if (i > 0) times.push(Date.now() - started);
            const violations = await check(s, ran);
            if (ran.outcome !== "done" || violations.length) throw new Error(`${operation} without a kill: ${ran.outcome} ${violations.join("; ")}`);
          }
          normal[operation] = times.sort((a, b) => a - b)[1]!;
          log(`${operation}: ${normal[operation]} ms without a kill (${times.join(", ")})`);
        }
        return normal;
      },
      async batch(trials, normalMs, window = 1.5) {
        const subjects = await Promise.all(trials.map((t) => subject(t.operation, t.trial)));
        const killAt = subjects.map((s) => Math.random() * window * normalMs[s.operation]);
        const last = Math.max(...killAt);
        const t0 = Date.now();
        const runs = subjects.map(async (s, i) => {
          await sleep(last - killAt[i]!);
          const started = Date.now();
          const ran = await run(s).catch((err: unknown): Ran => {
            log(`${s.operation} ${s.trial}: ${String(err)}`);
            return { outcome: "stuck", learntFrom: "answer", signer: s.device };
          });
          return { ran, completionMs: Date.now() - started, killAtMs: killAt[i]! };
        });
        await sleep(last - (Date.now() - t0));
        const inApi = trials.filter((t) => onRequestPath(t.operation)).length;
        if (inApi && inApi !== trials.length) throw new Error("a batch is of actor operations or of request-path ones, not both");
        await (inApi ? killApi() : killWorker());
        const done = await Promise.all(runs);
        const results: TrialResult[] = [];
        for (const [i, s] of subjects.entries()) {
          const { ran, completionMs, killAtMs } = done[i]!;
          const killedInsideActivity = await retriedInside(s, ran.exportId);
          const violations = await check(s, ran).catch((err: unknown) => [`checks failed: ${String(err)}`]);
          results.push({ operation: s.operation, trial: s.trial, killAtMs: Math.round(killAtMs), killedInsideActivity, outcome: ran.outcome, learntFrom: ran.learntFrom, completionMs, violations });
          log(`${s.operation} #${s.trial}: kill at ${Math.round(killAtMs)} ms, ${ran.outcome} (${ran.learntFrom}) in ${completionMs} ms${killedInsideActivity ? ", inside an activity" : ""}${violations.length ? `; VIOLATIONS: ${violations.join("; ")}` : ""}`);
        }
        return results;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The trial table: one row per operation. */
export function trialTable(results: TrialResult[], normalMs: Partial<Record<Operation, number>>): string {
  const rows = [
    "| operation | trials | normal ms | in flight at the kill | killed inside an activity | done (answer / room / retried call) | refused | stuck | invariant violations | p50 ms | max ms |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const op of OPERATIONS) {
    const rs = results.filter((r) => r.operation === op);
    if (!rs.length) continue;
    const done = (from: TrialResult["learntFrom"]) => rs.filter((r) => r.outcome === "done" && r.learntFrom === from).length;
    const times = rs.map((r) => r.completionMs).sort((a, b) => a - b);
    const label = op === "reshare" ? "reshare (2-of-2 <-> 2-of-3)" : op;
    rows.push(
      `| ${label} | ${rs.length} | ${normalMs[op] ?? "-"} | ${rs.filter((r) => r.killAtMs < r.completionMs).length} | ${rs.filter((r) => r.killedInsideActivity).length} | ${rs.filter((r) => r.outcome === "done").length} (${done("answer")} / ${done("room")} / ${done("retry")}) | ${rs.filter((r) => r.outcome === "refused").length} | ${rs.filter((r) => r.outcome === "stuck").length} | ${rs.reduce((n, r) => n + r.violations.length, 0)} | ${times[Math.floor(times.length / 2)]} | ${times[times.length - 1]} |`,
    );
  }
  return rows.join("\n");
}
