import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { NativeConnection, Worker, bundleWorkflowCode } from "@temporalio/worker";
import { recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWaasActivities } from "../../src/activities/waas.js";
import type { ShareSetView } from "../../src/domain/waas/share-operations.js";
import { createSealer } from "../../src/crypto/seal.js";
import type { Database } from "../../src/db/db.js";
import { closeDatabase } from "../../src/db/db.js";
import { listSets, setShares } from "../../src/db/repositories/waas-share-sets.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { findTemporalCli } from "../../src/infra/temporal-dev-server.js";
import { connectTemporalClient } from "../../src/temporal/flows.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { runWaasWalletOperation } from "../../src/temporal/waas-wallet.js";
import { workflowsPath } from "../../src/temporal/worker.js";
import {
  createShareSetUpdate,
  refreshUpdate,
  signUpdate,
  type CreateShareSetUpdateResult,
  type WaasWalletInput,
} from "../../src/workflows/waas-wallet.js";
import { migratedDatabase } from "../support/app.js";
import { TestHolder } from "../support/waas-device.js";
import { sealHolderKey } from "../../src/domain/waas/holder-share.js";
import { testEnv } from "../setup/env.js";

// The wallet actor against the real Temporal dev server and Postgres: a worker of its own on a private task
// queue, running the real activities behind a thin wrapper that can (a) fail an activity once right AFTER
// its write, as a worker killed between the write and its report would, checking the invariant at that
// moment, and (b) slow signing down, to see whether two operations overlap.

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };
// Short quiet time so the actors of this file end soon after it; production uses DEFAULT_ACTOR_POLICY.
const POLICY = { idleMs: 3_000 };

let db: Database;
let client: Client;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let environmentId: string;
let otherEnvironmentId: string;
let userId: string;
const taskQueue = `waas-wallet-${randomUUID()}`;
const sealer = createSealer([{ id: "test", key: randomBytes(32) }]);

/** Activities to fail once after they did their work; what the invariant looked like at each such moment. */
const failOnceAfter = new Set<string>();
const atCrash: { activity: string; current: number }[] = [];
let signDelayMs = 0;
const signSpans: { walletId: string; start: number; end: number }[] = [];

async function currentCount(walletId: string): Promise<number> {
  const r = await db.one<{ n: number }>("SELECT count(*)::int AS n FROM waas_share_sets WHERE wallet_id = $1 AND status = 'current'", [walletId]);
  return r.n;
}

function wrappedActivities() {
  const real = createWaasActivities({ db, sealer }) as unknown as Record<string, (input: { walletId: string }) => Promise<unknown>>;
  return Object.fromEntries(
    Object.entries(real).map(([name, fn]) => [
      name,
      async (input: { walletId: string }) => {
        const start = Date.now();
        if (name === "signWaasDigest" && signDelayMs) await sleep(signDelayMs);
        const result = await fn(input);
        if (name === "signWaasDigest") signSpans.push({ walletId: input.walletId, start, end: Date.now() });
        if (failOnceAfter.delete(name)) {
          atCrash.push({ activity: name, current: await currentCount(input.walletId) });
          throw new Error(`injected: worker lost after ${name} wrote`);
        }
        return result;
      },
    ]),
  );
}

beforeAll(async () => {
  db = await migratedDatabase();
  const t = await bootstrapTenant(db, { ownerEmail: `waas-${randomUUID()}@example.com` });
  environmentId = t.environmentId;
  otherEnvironmentId = t.liveEnvironmentId;
  userId = randomUUID();
  await db.none("INSERT INTO users (id, environment_id) VALUES ($1, $2)", [userId, environmentId]);
  client = await connectTemporalClient(testEnv().temporalAddress, "default");
  connection = await NativeConnection.connect({ address: testEnv().temporalAddress });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: quietLogger }),
    activities: wrappedActivities(),
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await client?.connection.close();
  if (db) await closeDatabase(db);
});

const walletInput = (walletId: string, policy: WaasWalletInput["policy"] = POLICY): WaasWalletInput => ({ environmentId, walletId, userId, policy });

async function newWallet(scheme: "TWO_OF_TWO" | "TWO_OF_THREE" = "TWO_OF_TWO", policy?: WaasWalletInput["policy"]) {
  const walletId = randomUUID();
  const bind = { walletId, sealer };
  const holders = scheme === "TWO_OF_TWO" ? [new TestHolder(2, bind)] : [new TestHolder(2, bind), new TestHolder(3, bind)];
  const wallet = walletInput(walletId, policy);
  const created: CreateShareSetUpdateResult = await runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, {
    chain: "EVM",
    scheme,
    holderKeys: holders.map((h) => h.keyInput()),
  });
  for (const h of holders) h.receive(created);
  return { walletId, wallet, holders, device: holders[0]!, created };
}

const digestOf = (text: string) => `0x${Buffer.from(text.padEnd(32, ".").slice(0, 32)).toString("hex")}` as `0x${string}`;

async function signs(wallet: WaasWalletInput, device: TestHolder, address: string, text = "hello") {
  const digest = digestOf(text);
  const sig = await runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest, holder: device.shareInput() });
  expect(await recoverAddress({ hash: digest, signature: sig.signature as `0x${string}` })).toBe(address);
  return sig;
}

/** The update's failure type (the activity's DomainError code, or the validator's). */
async function failureType(p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  let cause = (err as Error).cause as (Error & { type?: string; cause?: unknown }) | undefined;
  while (cause?.cause) cause = cause.cause as Error & { type?: string };
  return cause?.type;
}

describe("createShareSet", () => {
  it("creates a 2-of-2 wallet whose key exists only as shares: sealed server share, device share encrypted to the device", async () => {
    const { walletId, created, wallet, device } = await newWallet();
    expect(created.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(created.epoch).toBe(1);
    expect(created.encryptedShares.map((s) => s.holderIndex)).toEqual([2]);
    const row = await db.one("SELECT private_key_sealed, user_id FROM waas_wallets WHERE id = $1", [walletId]);
    expect(row).toEqual({ private_key_sealed: null, user_id: userId });
    const sets = await listSets(db, environmentId, walletId);
    expect(sets.map((s) => [s.epoch, s.status])).toEqual([[1, "current"]]);
    const stored = await setShares(db, environmentId, sets[0]!.id);
    expect(stored[0]!.shareSealed).toMatch(/^v1\.test\./);
    expect(stored[0]!.encryptedForHolder).toBeNull();
    expect(stored[1]!.shareSealed).toBeNull();
    expect(stored[1]!.encryptedForHolder).toBe(created.encryptedShares[0]!.encryptedShare);
    // The sealed server share is bound to its row: it does not open as another set's.
    expect(() => sealer.open(stored[0]!.shareSealed!, `waas-share:${randomUUID()}:1`)).toThrow();
    await signs(wallet, device, created.address);
  });

  it("is idempotent by Update id: the same operation id returns the same set, a new one on an existing wallet is refused", async () => {
    const walletId = randomUUID();
    const device = new TestHolder(2, { walletId, sealer });
    const wallet = walletInput(walletId);
    const arg = { chain: "EVM" as const, scheme: "TWO_OF_TWO" as const, holderKeys: [device.keyInput()] };
    const operationId = randomUUID();
    const a = await runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, arg, operationId);
    const b = await runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, arg, operationId);
    expect(b).toEqual(a);
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, arg))).toBe("wallet_exists");
    expect((await listSets(db, environmentId, walletId)).length).toBe(1);
  });

  it("refuses bad input before anything is written", async () => {
    const walletId = randomUUID();
    const wallet = walletInput(walletId);
    // Missing the device's key, or a key that is not 32 bytes.
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, { chain: "EVM", scheme: "TWO_OF_TWO", holderKeys: [] }))).toBe(
      "missing_holder_key",
    );
    expect(
      await failureType(
        runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, { chain: "EVM", scheme: "TWO_OF_TWO", holderKeys: [{ holderIndex: 2, sealedKey: sealer.seal("c2hvcnQ", `waas-holder-key:${walletId}:2`) }] }),
      ),
    ).toBe("invalid_holder_key");
    // The server's own index is not a holder the caller can name.
    expect(
      await failureType(
        runWaasWalletOperation(client, taskQueue, wallet, createShareSetUpdate, { chain: "EVM", scheme: "TWO_OF_TWO", holderKeys: [new TestHolder(1, { walletId, sealer }).keyInput()] }),
      ),
    ).toBe("invalid_holder");
    expect(await db.oneOrNone("SELECT 1 FROM waas_wallets WHERE id = $1", [walletId])).toBeNull();
  });
});

describe("refresh", () => {
  it("writes no holder key in clear to the workflow history (keys travel sealed)", async () => {
    const { walletId, wallet, device } = await newWallet();
    await runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: digestOf("history"), holder: device.shareInput() });
    const history = await client.workflow.getHandle(workflowIds.waasWallet(walletId)).fetchHistory();
    const payloads: string[] = [];
    const walk = (v: unknown): void => {
      if (v instanceof Uint8Array) payloads.push(Buffer.from(v).toString("utf8"));
      else if (v && typeof v === "object") for (const x of Object.values(v)) walk(x);
    };
    walk(history);
    const all = payloads.join("\n");
    expect(all).toContain(device.shareInput().encryptedShare); // the operation's input is there...
    expect(all).not.toContain(device.key); // ...but not the key that opens it
  });

  it("gives new shares of the same key: address unchanged, old set retired and destroyed, old device share useless", async () => {
    const { walletId, wallet, device, created } = await newWallet();
    const old = device.shareInput();
    const refreshed: ShareSetView = await runWaasWalletOperation(client, taskQueue, wallet, refreshUpdate, { holders: [device.shareInput()] });
    device.receive(refreshed);
    expect(refreshed.epoch).toBe(2);
    expect(refreshed.commitments[0]).toBe(created.commitments[0]); // the group key
    expect(refreshed.commitments[1]).not.toBe(created.commitments[1]);
    const sets = await listSets(db, environmentId, walletId);
    expect(sets.map((s) => [s.epoch, s.status])).toEqual([
      [1, "retired"],
      [2, "current"],
    ]);
    const destroyed = await setShares(db, environmentId, sets[0]!.id);
    expect(destroyed.every((s) => s.destroyedAt && s.shareSealed === null && s.encryptedForHolder === null)).toBe(true);
    await signs(wallet, device, created.address, "after refresh");
    // The old device share belongs to a destroyed set: it no longer opens for the current one.
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: digestOf("x"), holder: old }))).toBe(
      "key_share_not_decrypted",
    );
  });

  it("leaves exactly one current set when the worker is lost after each step's write (retried steps find their work)", async () => {
    const { walletId, wallet, holders, device, created } = await newWallet("TWO_OF_THREE");
    atCrash.length = 0;
    for (const activity of ["refreshWaasShareSet", "promoteWaasShareSet", "destroyRetiredWaasShares"]) failOnceAfter.add(activity);
    const refreshed = await runWaasWalletOperation(client, taskQueue, wallet, refreshUpdate, { holders: holders.map((h) => h.shareInput()) });
    expect(failOnceAfter.size).toBe(0);
    // At each crash: after the pending set was written, after the promotion, after the destruction.
    expect(atCrash.map((c) => [c.activity, c.current])).toEqual([
      ["refreshWaasShareSet", 1],
      ["promoteWaasShareSet", 1],
      ["destroyRetiredWaasShares", 1],
    ]);
    const sets = await listSets(db, environmentId, walletId);
    // The retried first step found its pending set: no second epoch 2, no orphan.
    expect(sets.map((s) => [s.epoch, s.status])).toEqual([
      [1, "retired"],
      [2, "current"],
    ]);
    expect(refreshed.shareSetId).toBe(sets[1]!.id);
    device.receive(refreshed);
    await signs(wallet, device, created.address, "after crashes");
  });

  it("refuses a refresh without every holder's share, changing nothing", async () => {
    const { walletId, wallet, device } = await newWallet("TWO_OF_THREE");
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, refreshUpdate, { holders: [device.shareInput()] }))).toBe("missing_holder_key");
    expect((await listSets(db, environmentId, walletId)).map((s) => s.status)).toEqual(["current"]);
  });
});

describe("sign", () => {
  it("refuses a wrong device key, another environment's request and a malformed digest", async () => {
    const { walletId, wallet, device, created } = await newWallet();
    const wrongKey = { ...device.shareInput(), sealedKey: new TestHolder(2, { walletId, sealer }).sealedKey() };
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: digestOf("x"), holder: wrongKey }))).toBe(
      "key_share_not_decrypted",
    );
    // The device's own key, sealed for another wallet: the seal binds it to this wallet and holder.
    const movedKey = { ...device.shareInput(), sealedKey: sealHolderKey(sealer, randomUUID(), 2, device.key) };
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: digestOf("x"), holder: movedKey }))).toBe("invalid_holder_key");
    const tampered = { ...device.shareInput(), encryptedShare: device.shareInput().encryptedShare.slice(0, -2) + "AA" };
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: digestOf("x"), holder: tampered }))).toBe(
      "key_share_not_decrypted",
    );
    expect(
      await failureType(runWaasWalletOperation(client, taskQueue, { ...wallet, environmentId: otherEnvironmentId }, signUpdate, { digest: digestOf("x"), holder: device.shareInput() })),
    ).toBe("not_found");
    expect(await failureType(runWaasWalletOperation(client, taskQueue, wallet, signUpdate, { digest: "0x1234", holder: device.shareInput() }))).toBe("invalid_digest");
    // None of that changed the wallet: it still signs.
    await signs(wallet, device, created.address);
    expect((await listSets(db, environmentId, walletId)).length).toBe(1);
  });

  it("serialises two operations on one wallet and runs two wallets in parallel", async () => {
    const a = await newWallet();
    const b = await newWallet();
    signDelayMs = 700;
    signSpans.length = 0;
    try {
      await Promise.all([signs(a.wallet, a.device, a.created.address, "a1"), signs(a.wallet, a.device, a.created.address, "a2")]);
      const [x, y] = signSpans.filter((s) => s.walletId === a.walletId).sort((p, q) => p.start - q.start);
      expect(y!.start).toBeGreaterThanOrEqual(x!.end); // one after the other
      signSpans.length = 0;
      await Promise.all([signs(a.wallet, a.device, a.created.address, "a3"), signs(b.wallet, b.device, b.created.address, "b1")]);
      const [p, q] = signSpans.sort((m, n) => m.start - n.start);
      expect(q!.start).toBeLessThan(p!.end); // overlapping
    } finally {
      signDelayMs = 0;
    }
  });
});

describe("the actor", () => {
  it("is findable by environment, user and operation, continues as new when its history grows, and keeps working", async () => {
    const { walletId, wallet, device, created } = await newWallet("TWO_OF_TWO", { ...POLICY, maxHistoryEvents: 25 });
    const handle = client.workflow.getHandle(workflowIds.waasWallet(walletId));
    const firstRunId = (await handle.describe()).runId;
    for (let i = 0; i < 4; i++) await signs(wallet, device, created.address, `sign ${i}`);
    const refreshed = await runWaasWalletOperation(client, taskQueue, wallet, refreshUpdate, { holders: [device.shareInput()] });
    device.receive(refreshed);
    await signs(wallet, device, created.address, "last");
    const d = await handle.describe();
    expect(d.runId).not.toBe(firstRunId);
    const first = await client.workflow.getHandle(workflowIds.waasWallet(walletId), firstRunId).describe();
    expect(first.status.name).toBe("CONTINUED_AS_NEW");
    expect(d.memo).toMatchObject({ environmentId, walletId, userId });
    // Visibility is eventually consistent: list until the operator's query finds it.
    const query = `SigilEnvironmentId = "${environmentId}" AND SigilUserId = "${userId}" AND SigilOperation = "sign" AND WorkflowId = "${workflowIds.waasWallet(walletId)}"`;
    let found = 0;
    for (let i = 0; i < 50 && found === 0; i++) {
      found = 0;
      for await (const _ of client.workflow.list({ query })) found++;
      if (!found) await sleep(200);
    }
    expect(found).toBeGreaterThan(0);
  });
});

// Replay: the committed histories of one wallet actor (create, refresh with a lost worker, signs, a
// continue-as-new, then the next run's sign and idle end) must replay against today's code. Record them
// again when the workflow changes on purpose (with a patch for running actors): RECORD_WAAS_HISTORY=1.
describe("replay", () => {
  const dir = path.join(import.meta.dirname, "histories");
  const files = ["waas-wallet.json", "waas-wallet-idle.json"];

  it("records (RECORD_WAAS_HISTORY=1) or replays the committed histories", async () => {
    if (process.env.RECORD_WAAS_HISTORY) await record(dir, files);
    const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
    for (const file of files) {
      const p = path.join(dir, file);
      expect(existsSync(p), `${file} is committed`).toBe(true);
      const json = JSON.parse(readFileSync(p, "utf8"));
      await Worker.runReplayHistory({ workflowBundle }, json, `replay-${file}`);
    }
  }, 120_000);
});

async function record(dir: string, files: string[]) {
  const { walletId, wallet, device, created } = await newWallet("TWO_OF_TWO", { idleMs: 2_000, maxHistoryEvents: 30 });
  const handle = client.workflow.getHandle(workflowIds.waasWallet(walletId));
  const firstRunId = (await handle.describe()).runId;
  failOnceAfter.add("promoteWaasShareSet");
  device.receive(await runWaasWalletOperation(client, taskQueue, wallet, refreshUpdate, { holders: [device.shareInput()] }));
  for (let i = 0; (await handle.describe()).runId === firstRunId && i < 10; i++) await signs(wallet, device, created.address, `rec ${i}`);
  const secondRunId = (await handle.describe()).runId;
  expect(secondRunId).not.toBe(firstRunId);
  await signs(wallet, device, created.address, "second run");
  await client.workflow.getHandle(workflowIds.waasWallet(walletId), secondRunId).result();
  const cli = findTemporalCli();
  if (!cli) throw new Error("recording needs the Temporal CLI");
  for (const [runId, file] of [
    [firstRunId, files[0]!],
    [secondRunId, files[1]!],
  ]) {
    const json = execFileSync(cli, ["workflow", "show", "-w", workflowIds.waasWallet(walletId), "-r", runId!, "-o", "json", "--address", testEnv().temporalAddress], {
      encoding: "utf8",
    });
    writeFileSync(path.join(dir, file), json.trim() + "\n");
  }
}
