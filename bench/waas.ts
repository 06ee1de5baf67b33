/**
 * `npm run bench:waas`: threshold wallets (issue 14) through the whole path, each case beside a baseline that
 * does the same cryptography in a plain loop in this process, loopback only, bounded in time.
 *
 *   1. EVM signatures/s: POST .../waas/{walletId}/signMessage, POST .../waas/rooms/{roomId}/contribution with
 *      the device's share as a JWE to the room key the answer names; the api opens both shares,
 *      combines, signs (ECDSA) and wipes in the request's own transaction (no workflow). BENCH_WAAS_CLIENTS
 *      (8) clients on as many wallets, then 1 client on one wallet.
 *      Baselines: hashMessage + signDigestWithShares over a split key's two shares, and secp256k1.sign with
 *      the whole key.
 *   2. Solana signatures/s, the same way with GET .../waas/rooms/{roomId} between (FROST ed25519: the server
 *      commits when the room opens, the device sends its commitments and signature share, the api signs its
 *      share and aggregates). Baselines:
 *      frostCommit / frostSignShare for both holders + frostAggregate, and ed25519.sign with the whole key.
 *   3. Wallets created/s: POST .../waas/create (the keygen runs in the call's transaction), GET the room, the
 *      device opens and Feldman-checks its share. Baseline: newWalletSecret + splitSecret + the device share's JWE.
 *   4. The wallet actor's operations (Temporal workflow waas-wallet/<walletId>), one client, one after the
 *      other on one wallet: refresh, reshare (2-of-2 <-> 2-of-3), backup to the vault, recovery from it,
 *      export; their p50 beside the rest.
 *
 * Sigil runs as `sigil start api` beside `sigil start worker` (real Postgres, Redis, Temporal from the
 * environment) on a database and task queue of the bench's own. `--seconds N` (or BENCH_SECONDS, default 10)
 * per measured run. BENCH_WAAS_PROFILE=<dir> starts api and worker under `node --cpu-prof` and prints where
 * each spent its CPU; BENCH_WAAS_CASES=evm (or svm, create, actor, comma-separated) runs only those cases. Print-only: the numbers are recorded in docs/benchmarks.md by hand.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:waas -- --seconds 10
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hexToBytes } from "@noble/curves/utils.js";
import { base58 } from "@scure/base";
import { hashMessage, recoverMessageAddress } from "viem";
import { encryptToKeygenId, newKeygenKey } from "../src/crypto/keygen-envelope.js";
import { signDigestWithShares } from "../src/crypto/threshold/ecdsa.js";
import { frostAggregate, frostCommit, frostSignShare } from "../src/crypto/threshold/frost.js";
import { newWalletSecret } from "../src/crypto/threshold/keys.js";
import { splitSecret, type KeyShare, type ShareSetPublic } from "../src/crypto/threshold/shares.js";
import { signInWith } from "../src/domain/sign-in/pipeline.js";
import type { PublicEnvironment } from "../src/domain/tenancy/access.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { benchDeployment } from "./support/deps.js";
import { keepAliveClient } from "./support/http-client.js";
import { callLoad, type Result } from "./support/load.js";
import { cpuSeconds, startSigil, type Running } from "./support/processes.js";
import { summarise } from "./support/profile-summary.js";
import { BENCH_SCRYPT_N, TestDevice, type RoomView } from "../test/support/waas-device.js";

const argSeconds = process.argv.indexOf("--seconds");
const seconds = Number(argSeconds > 0 ? process.argv[argSeconds + 1] : (process.env.BENCH_SECONDS ?? 10));
const CLIENTS = Number(process.env.BENCH_WAAS_CLIENTS ?? 8);
const port = Number(process.env.BENCH_PORT ?? 18390);
const profileDir = process.env.BENCH_WAAS_PROFILE;
/** BENCH_WAAS_CASES: a comma list of evm, svm, create, actor (default all), to measure or profile one case alone. */
const cases = new Set((process.env.BENCH_WAAS_CASES ?? "evm,svm,create,actor").split(",").map((c) => c.trim()));
type Chain = "EVM" | "SVM";

/** A signed-in user with one wallet per chain, and the device that holds its shares. */
interface Client {
  jwt: string;
  wallets: Partial<Record<Chain, { walletId: string; address: string; device: TestDevice }>>;
}

const { database, childEnv, deps } = await benchDeployment("waas");
const running: Running[] = [];

try {
  if (profileDir) (rmSync(profileDir, { recursive: true, force: true }), mkdirSync(profileDir, { recursive: true }));
  const profiled = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const tenant = await bootstrapTenant(deps.db);
  const env = tenant.environmentId;
  const publicEnv: PublicEnvironment = { environmentId: env, environmentName: "sandbox", projectId: tenant.projectId, organizationId: tenant.organizationId };
  const worker = await startSigil("worker", port + 10, profiled, childEnv);
  running.push(worker);
  const api = await startSigil("api", port, profiled, childEnv);
  running.push(api);
  const spawned = Date.now();

  const errors = new Set<string>();
  // The devices' HTTP client (./support/http-client.ts): a keep-alive connection per client at most.
  const client = keepAliveClient(api.base, 16);
  async function http<T>(method: "GET" | "POST", route: string, jwt: string, body?: unknown): Promise<T> {
    const r = await client.call(method, `/api/v0/sdk/${env}${route}`, { authorization: `Bearer ${jwt}` }, body === undefined ? undefined : JSON.stringify(body));
    if (r.status !== 200) {
      errors.add(`${method} ${route.replace(/[0-9a-f-]{36}/g, ":id")}: ${r.status} ${r.text.slice(0, 200)}`);
      throw new Error(String(r.status));
    }
    return JSON.parse(r.text) as T;
  }

  /** createWaasAccount (2-of-2), the room read, the device's share opened and checked: one wallet made. */
  async function createWallet(c: Client, chain: Chain) {
    const device = new TestDevice("bench", BENCH_SCRYPT_N);
    const opened = await http<{ roomId: string; walletId: string }>("POST", "/waas/create", c.jwt, { chain, clientKeygenIds: device.keygenIds(1), thresholdSignatureScheme: "TWO_OF_TWO" });
    const room = await http<RoomView>("GET", `/waas/rooms/${opened.roomId}`, c.jwt);
    if (room.status !== "done") throw new Error(`keygen room ${room.status}`);
    await device.receive(room.result!.shareSet);
    return { walletId: opened.walletId, address: room.result!.address as string, device };
  }

  /**
   * signMessage, the device's part into the room: the finished room's signature. An EVM device encrypts its
   * share to the room key the answer names (serverKeygenIds[0]), as the published client does; a Solana one
   * reads the room first, for the server's FROST commitments.
   */
  let sent = 0;
  async function sign(c: Client, chain: Chain): Promise<{ message: string; signature: string }> {
    const w = c.wallets[chain]!;
    const message = `bench ${sent++}`;
    const opened = await http<{ roomId: string; serverKeygenIds: string[] }>("POST", `/waas/${w.walletId}/signMessage`, c.jwt, { message });
    const room =
      chain === "EVM"
        ? ({ roomId: opened.roomId, serverKeygenIds: opened.serverKeygenIds } as RoomView)
        : await http<RoomView>("GET", `/waas/rooms/${opened.roomId}`, c.jwt);
    const contribution = chain === "EVM" ? await w.device.sharesContribution(room) : w.device.frostContribution(room);
    const done = await http<RoomView>("POST", `/waas/rooms/${opened.roomId}/contribution`, c.jwt, { contribution });
    if (done.status !== "done") throw new Error(`sign room ${done.status}`);
    return { message, signature: done.result!.signature as string };
  }

  /** The actor's operations on one wallet, as a device drives them (the device takes its new shares after each). */
  type Held = { walletId: string; address: string; device: TestDevice; scheme?: "TWO_OF_TWO" | "TWO_OF_THREE" };
  const contributeShares = async (c: Client, w: Held, roomId: string, extra: Record<string, unknown> = {}) => {
    const room = await http<RoomView>("GET", `/waas/rooms/${roomId}`, c.jwt);
    const done = await http<RoomView>("POST", `/waas/rooms/${roomId}/contribution`, c.jwt, { contribution: { ...(await w.device.sharesContribution(room)), ...extra } });
    if (done.status !== "done") throw new Error(`${room.operation} room ${done.status}`);
    return done;
  };
  const actorOps = {
    async refresh(c: Client, w: Held) {
      const opened = await http<{ roomId: string }>("POST", `/waas/${w.walletId}/refresh`, c.jwt);
      await w.device.receive((await contributeShares(c, w, opened.roomId)).result!.shareSet);
    },
    async reshare(c: Client, w: Held) {
      const from = w.scheme ?? "TWO_OF_TWO";
      const to = from === "TWO_OF_TWO" ? "TWO_OF_THREE" : "TWO_OF_TWO";
      const next = new TestDevice("bench", BENCH_SCRYPT_N);
      const body = { clientKeygenIds: next.keygenIds(to === "TWO_OF_TWO" ? 1 : 2), oldThresholdSignatureScheme: from, newThresholdSignatureScheme: to };
      const opened = await http<{ roomId: string }>("POST", `/waas/${w.walletId}/reshare`, c.jwt, body);
      await next.receive((await contributeShares(c, w, opened.roomId)).result!.shareSet);
      w.device = next;
      w.scheme = to;
    },
    backup: (c: Client, w: Held) =>
      http("POST", `/waas/${w.walletId}/keyShares/backup`, c.jwt, { encryptedAccountCredentials: w.device.backupCredentials(), passwordEncrypted: true }),
    recovery: (c: Client, w: Held) => http("POST", `/waas/${w.walletId}/keyShares/recover`, c.jwt, {}),
    async export(c: Client, w: Held) {
      const opened = await http<{ roomId: string }>("POST", `/waas/${w.walletId}/privateKey/export`, c.jwt, { exportId: `bench-${sent++}-${Date.now()}` });
      await contributeShares(c, w, opened.roomId, { exportKey: exportKey.publicJwk });
    },
  };
  const exportKey = TestDevice.exportKey();

  // --- users and wallets up front: one user per client, each with an EVM and a Solana wallet.
  const started = Date.now();
  const meta = { ipAddress: "127.0.0.1", userAgent: "bench", requestId: "" };
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS + 1; i++) {
    const s = await signInWith(deps, publicEnv, { kind: "email", email: `waas-${i}@bench.example.com` }, meta);
    clients.push({ jwt: s.tokens.jwt, wallets: {} });
  }
  // One after the other: a cold api's pool opening connections for every client at once can pass its connect timeout.
  for (const c of clients) (c.wallets.EVM = await createWallet(c, "EVM")), (c.wallets.SVM = await createWallet(c, "SVM"));
  console.log(`${clients.length} users with an EVM and a Solana wallet each in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Statistics as autovacuum leaves them within its first minute (bench/sessions.ts says why).
  await deps.db.none("ANALYZE");

  // Warm-up, and the proof that what is measured is right: the signatures verify as plain ones.
  for (const c of clients) {
    const evm = await sign(c, "EVM");
    if ((await recoverMessageAddress({ message: evm.message, signature: evm.signature as `0x${string}` })) !== c.wallets.EVM!.address) throw new Error("EVM signature does not recover the wallet's address");
    const svm = await sign(c, "SVM");
    if (!ed25519.verify(base58.decode(svm.signature), new TextEncoder().encode(svm.message), base58.decode(c.wallets.SVM!.address))) throw new Error("Solana signature does not verify");
  }

  // --- the plain-loop baselines, in this process (one thread, no I/O)
  const evmSplit = splitSecret("secp256k1", newWalletSecret("secp256k1"), 2, 2);
  const evmKey = newWalletSecret("secp256k1");
  const svmSplit = splitSecret("ed25519", newWalletSecret("ed25519"), 2, 2);
  const svmSeed = ed25519.utils.randomSecretKey();
  let n = 0;
  const loop = (work: () => unknown) => callLoad(async () => work(), 1, seconds);
  const frostSign = (pub: ShareSetPublic, shares: KeyShare[], message: Uint8Array) => {
    const rounds = shares.map((s) => ({ s, ...frostCommit("ed25519", pub, s) }));
    const commitments = Object.fromEntries(rounds.map((r) => [r.s.index, r.commitments]));
    const sigShares = Object.fromEntries(rounds.map((r) => [r.s.index, frostSignShare("ed25519", pub, r.s, r.nonces, commitments, message)]));
    return frostAggregate("ed25519", pub, commitments, sigShares, message);
  };
  const deviceKeygenId = newKeygenKey().keygenId;

  // --- measuring: each Sigil run, with the api's and worker's CPU per operation, then its baselines
  // Postgres backends serving this bench's database (`postgres: <user> <database> ...`), and the Temporal dev
  // server (shared: other users of the machine's Temporal count too).
  const dbName = new URL(database.url).pathname.slice(1);
  const isOurPostgres = (cmdline: string) => cmdline.startsWith("postgres: ") && cmdline.split(" ")[2] === dbName;
  const isTemporal = (cmdline: string) => /(^|\/)temporal\b/.test(cmdline.split(" ")[0] ?? "");
  const cpu = () => (cpuSeconds(api.child) ?? 0) + (cpuSeconds(worker.child) ?? 0);
  const ownCpu = () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  const rows: string[] = [];
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");
  const sigilRun = async (name: string, work: (i: number) => () => Promise<unknown>, callers: number) => {
    const before = cpu();
    const [ownBefore, machineBefore, temporalBefore, postgresBefore] = [ownCpu(), machineBusy(), cpuOf(isTemporal), cpuOf(isOurPostgres)];
    const calls = Array.from({ length: callers }, (_, i) => work(i));
    const parts = await Promise.all(calls.map((c) => callLoad(c, 1, seconds)));
    const r: Result = { rps: parts.reduce((s, p) => s + p.rps, 0), ...percentiles(parts), ok: parts.reduce((s, p) => s + p.ok, 0), failed: parts.reduce((s, p) => s + p.failed, 0) };
    const perOp = (s: number) => (r.ok ? ((s * 1000) / r.ok).toFixed(1) : "-");
    rows.push(`| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${perOp(cpu() - before)} | ${perOp(cpuSince(temporalBefore, isTemporal))} | ${perOp(cpuSince(postgresBefore, isOurPostgres))} | ${perOp(ownCpu() - ownBefore)} | ${perOp(machineBusy() - machineBefore)} | ${r.failed} |`);
    return r;
  };
  const baseRun = async (name: string, work: () => unknown, sigil: Result) => {
    const r = await loop(work);
    rows.push(`| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | - | - | - | - | - | ${r.failed} | Sigil ${CLIENTS} clients / this: ${((sigil.rps / r.rps) * 100).toFixed(1)} % |`);
  };

  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${seconds} s per run; load average ${load()}`);
  const measured = Date.now();
  if (cases.has("evm")) {
    const evm = await sigilRun(`EVM signatures/s, ${CLIENTS} clients on ${CLIENTS} wallets`, (i) => () => sign(clients[i]!, "EVM"), CLIENTS);
    await sigilRun("EVM signatures/s, 1 client on one wallet", () => () => sign(clients[CLIENTS]!, "EVM"), 1);
    await baseRun("baseline: hashMessage + signDigestWithShares (2 shares), plain loop", () => signDigestWithShares(evmSplit.public, evmSplit.shares, hexToBytes(hashMessage(`bench ${n++}`).slice(2))), evm);
    await baseRun("baseline: hashMessage + secp256k1.sign (whole key), plain loop", () => secp256k1.sign(hexToBytes(hashMessage(`bench ${n++}`).slice(2)), evmKey, { prehash: false }), evm);
  }
  if (cases.has("svm")) {
    const svm = await sigilRun(`Solana signatures/s, ${CLIENTS} clients on ${CLIENTS} wallets`, (i) => () => sign(clients[i]!, "SVM"), CLIENTS);
    await sigilRun("Solana signatures/s, 1 client on one wallet", () => () => sign(clients[CLIENTS]!, "SVM"), 1);
    await baseRun("baseline: FROST commit + sign share (2 holders) + aggregate, plain loop", () => frostSign(svmSplit.public, svmSplit.shares, new TextEncoder().encode(`bench ${n++}`)), svm);
    await baseRun("baseline: ed25519.sign (whole key), plain loop", () => ed25519.sign(new TextEncoder().encode(`bench ${n++}`), svmSeed), svm);
  }
  if (cases.has("create")) {
    const made = await sigilRun(`wallets created/s (EVM 2-of-2), ${CLIENTS} clients`, (i) => () => createWallet(clients[i]!, "EVM"), CLIENTS);
    await sigilRun("wallets created/s (EVM 2-of-2), 1 client", () => () => createWallet(clients[CLIENTS]!, "EVM"), 1);
    await baseRun("baseline: newWalletSecret + splitSecret + device share JWE, plain loop", async () => {
      const split = splitSecret("secp256k1", newWalletSecret("secp256k1"), 2, 2);
      await encryptToKeygenId(deviceKeygenId, "share:bench:2", new TextEncoder().encode(split.shares[1]!.value));
    }, made);
  }

  if (cases.has("actor")) {
    // The wallet actor's operations: one client on one wallet (a backup first, so that recovery has one).
    const actorClient = clients[CLIENTS]!;
    const held: Held = await createWallet(actorClient, "EVM");
    await actorOps.backup(actorClient, held);
    for (const [name, op] of Object.entries(actorOps)) {
      await sigilRun(`actor: ${name}, 1 client on one wallet`, () => () => op(actorClient, held), 1);
    }
  }

  console.log("| case | ops/s | p50 ms | p99 ms | CPU ms/op: api + worker | Temporal server | Postgres | the device (bench process) | whole machine | errors | Sigil / baseline |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log(`\nload average at the end ${load()}. Other processes on the machine move absolute numbers.`);
  for (const e of errors) console.log(`error: ${e}`);

  if (profileDir) {
    const roles = new Map([[String(api.child.pid), "api"], [String(worker.child.pid), "worker"]]);
    for (const r of running.reverse()) await r.stop();
    running.length = 0;
    for (const f of readdirSync(profileDir).filter((x) => x.endsWith(".cpuprofile"))) {
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread, others are worker threads
      // (the Temporal worker runs workflows in one).
      const [, , , pid, thread] = f.split(".");
      console.log(`\n## ${roles.get(pid ?? "") ?? f}, thread ${thread}\n${summarise(path.join(profileDir, f), 20, measured - spawned)}`);
    }
  }
} finally {
  for (const r of running.reverse()) await r.stop();
  await deps.close();
  await database.drop();
}

/**
 * CPU seconds the whole machine has been busy (every core, /proc/stat; 0 elsewhere): beside the api's, the
 * worker's and the device's own, the rest is Temporal, Postgres, Redis and whatever else runs here.
 */
function machineBusy(): number {
  try {
    const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: busy is everything but idle and iowait.
    return ticks.slice(0, 8).reduce((sum, t, i) => (i === 3 || i === 4 ? sum : sum + t), 0) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by each process whose command line `matches` (from /proc; Linux only), by pid. */
function cpuOf(matches: (cmdline: string) => boolean): Map<string, number> {
  const used = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (matches(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim())) used.set(pid, cpuSeconds(Number(pid)) ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return used;
}

/**
 * CPU seconds the matching processes used since `before`, counting the ones alive at both ends, new ones
 * from zero; a backend that exited (a pool closing an idle connection) took its time with it: a lower bound.
 */
function cpuSince(before: Map<string, number>, matches: (cmdline: string) => boolean): number {
  let sum = 0;
  for (const [pid, now] of cpuOf(matches)) sum += now - (before.get(pid) ?? 0);
  return sum;
}

/** The callers' latencies together: p50 and p99 over every call of the run. */
function percentiles(parts: Result[]): { p50: number; p99: number } {
  const all = parts.flatMap((p) => p.latencies ?? []).sort((a, b) => a - b);
  const at = (q: number) => Math.round(all[Math.min(all.length - 1, Math.floor(q * all.length))] ?? 0);
  return { p50: at(0.5), p99: at(0.99) };
}
