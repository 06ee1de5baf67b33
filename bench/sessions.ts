/**
 * `npm run bench:sessions`: end users' sessions and sign-in (issue 12), each case beside a bare node:http
 * baseline doing the same work (bench/baseline/sessions-server.ts), taking turns (BENCH_ROUNDS, default 4),
 * BENCH_SECONDS per side and case (default 10), loopback only, BENCH_CONNECTIONS concurrent callers (10).
 *
 *   session check   GET /api/v0/sdk/{env}/session with a valid session JWT -> 204. Sigil remembers tokens
 *                   it verified (SessionVerifier, 20,000 per process), so the cases say which path runs:
 *                   one token, and BENCH_SESSIONS (1,000) sessions' tokens round-robin, both answered from
 *                   that memo after their first call; BENCH_COLD_TOKENS (30,000) distinct valid tokens
 *                   round-robin, more than the memo holds, so every call is a full ES256 verification.
 *                   Baseline: jose jwtVerify with the environment's public key imported once + the same
 *                   revocation GET in Redis; "bare + memo" rows give the baseline the same memo.
 *   refresh         POST /api/v0/sdk/{env}/refresh with 1,000 sessions' tokens round-robin (sessions of its own,
 *                   not the checks') -> VerifyResponse. A refresh spends its token, so each session's next
 *                   refresh uses the token the last one answered; a session whose answer was cut off at the
 *                   end of a turn leaves the rotation (its token is spent, and a replay would revoke it). Baseline: the memo'd verification and revocation GET above, then the domain's
 *                   refreshSession, as Sigil's handler (the rotation and the user aggregate in one statement,
 *                   two ES256 signatures: jwt and minifiedJwt).
 *   SIWE sign-in    GET /nonce, then POST /verify with an EIP-4361 message signed by a throwaway EOA key.
 *                   Per turn: up to BENCH_SIGN_INS (1,000) nonces (what the side's last verify rate fills the
 *                   turn with, plus 30 %) are fetched (measured), the messages are signed
 *                   by this process (not measured: client CPU), then the verify calls are sent (measured),
 *                   each phase until done or BENCH_SECONDS / BENCH_ROUNDS. "sign-ins/s" = 1 / (wall time per
 *                   nonce + wall time per verify), both at BENCH_CONNECTIONS concurrent callers. Two cases:
 *                   new wallets (each sign-in creates a user) and returning wallets (BENCH_RETURNING_WALLETS,
 *                   200, signed in once before the run, round-robin). Baseline: the domain's issueNonce, then
 *                   proveWallet (viem parse, checks, libsecp256k1 recovery, the nonce taken) and signInWith.
 *   peer method     SIWE as a peer's published benchmark measures it (Better Auth's): BENCH_PEER_CONNECTIONS
 *                   (20) callers, BENCH_PEER_SIGN_INS (1,500) nonces fetched (timed), every message signed by
 *                   this process with ONE returning wallet (not timed), then the verifies sent, each body
 *                   once (timed). sign-ins/s = N / (nonce time + verify time), verify/s = N / verify time,
 *                   p99 of verify; and refresh/s at the same 20 connections for BENCH_SECONDS (Sigil and
 *                   bare only). Three sides run it BENCH_ROUNDS times, taking turns: bare, Sigil and the peer
 *                   itself, Better Auth 1.7.25 (bench/peer/better-auth/server.ts: its SIWE plugin as its docs
 *                   set it up, domain localhost, anonymous, viem's verifyMessage, served by its node handler,
 *                   its tables made by its own migrations in a database of its own on DATABASE_URL's
 *                   server). Its messages are the same EIP-4361 messages of the same wallet, in its body
 *                   shape ({message, signature}); the wallet signs in once alone before its warm-up, so it
 *                   is a returning wallet there too. The rates add up the turns' calls and times; the peer's
 *                   Postgres CPU is its database's backends'. It prints Sigil / Better Auth, measured in
 *                   the same run: this machine's speed drifts by up to 40 % within an hour, so a number
 *                   recorded earlier does not compare. BENCH_PEER=off leaves the peer out. Its dependencies
 *                   are a package of their own, installed (npm ci --prefix bench/peer/better-auth) on the
 *                   first run that needs them.
 *
 * The sign-in cases call every side with the same client: undici Pools, one per side and caller count with a
 * keep-alive connection per caller, reading each answer's body as text. The global fetch cost about as much
 * CPU per call as a server does on this 2-core machine, and that CPU was taken from the servers measured.
 *
 * Sigil runs as `sigil start api` beside `sigil start worker`, on a database of the bench's own (dropped at
 * the end), with its own sealing key and task queue, and with every rate limit off
 * (SIGIL_SDK_RATE_LIMIT_PER_10S=0, SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE=0, SIGIL_RATE_LIMIT_PER_MINUTE=0): a
 * bench measures the path, not the limiter. BENCH_CASES=check,refresh,siwe picks cases (hot: only the
 * session check's 1,000-token cases; cold: only its full-verification case; peer: the peer method, not
 * run unless named: BENCH_CASES=peer). BENCH_PROFILE_DIR=<dir>
 * starts both servers under `node --cpu-prof` and prints where each spent its CPU during the measured cases
 * (bench/support/profile-summary.ts; the .cpuprofile files stay in <dir>/sigil and <dir>/bare).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:sessions
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import type { PrivateKeyAccount } from "viem/accounts";
import { closeDatabase, connectDatabase, type Database, type Queryable } from "../src/db/db.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import type { PublicEnvironment } from "../src/domain/tenancy/access.js";
import { signInWith } from "../src/domain/sign-in/pipeline.js";
import { normalizeWalletAddress } from "../src/domain/wallets/addresses.js";
import { createEmptyDatabase } from "./support/database.js";
import { benchDeployment } from "./support/deps.js";
import { keepAliveClient, type Answer } from "./support/http-client.js";
import { benchServers, seconds } from "./support/env.js";
import { drainLoad, httpLoad, type Result } from "./support/load.js";
import { paired, row, summarise, TABLE_HEADER } from "./support/paired.js";
import { cpuSeconds, startBaseline, startPeer, startSigil, type Running } from "./support/processes.js";
import { summarise as summariseProfile } from "./support/profile-summary.js";
import { signedPeerBodies, signedVerifyBodies, throwawayWallets } from "./support/siwe.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000);
const COLD_TOKENS = Number(process.env.BENCH_COLD_TOKENS ?? 30_000);
const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 1_000);
const RETURNING = Number(process.env.BENCH_RETURNING_WALLETS ?? 200);
const cases = new Set((process.env.BENCH_CASES ?? "check,refresh,siwe").split(","));
const port = Number(process.env.BENCH_PORT ?? 18280);
const PEER_CONNECTIONS = Number(process.env.BENCH_PEER_CONNECTIONS ?? 20);
const PEER_SIGN_INS = Number(process.env.BENCH_PEER_SIGN_INS ?? 1_500);
const PEER = process.env.BENCH_PEER !== "off";
/**
 * The peer's number recorded once by its own method on this machine (docs/benchmarks.md): history only. The
 * machine's speed drifts by up to 40 % within an hour, so the ratio comes from the peer measured in the run.
 */
const PEER_RECORDED = "Better Auth 1.7.25 recorded earlier on this machine: 186 sign-ins/s (verify 221/s)";
const profileDir = process.env.BENCH_PROFILE_DIR;

/** node flags of a server: under --cpu-prof into <BENCH_PROFILE_DIR>/<name> when profiling. */
function profiled(name: string): string[] {
  if (!profileDir) return [];
  const dir = path.join(profileDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`];
}

/** Where a profiled server spent its CPU after `fromMs` since its start (the measured cases). */
function printProfile(name: string, fromMs: number): void {
  const dir = path.join(profileDir!, name);
  // tsx's loader thread writes a small profile of its own: the main thread's is the largest.
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort((a, b) => statSync(path.join(dir, b)).size - statSync(path.join(dir, a)).size)[0];
  console.log(`\n### profile: ${name}\n${file ? summariseProfile(path.join(dir, file), 25, fromMs) : "(no profile written)"}`);
}

/** n calls of `fn`, at most `width` at a time, results in order. */
async function inBatches<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

/**
 * CPU seconds each Postgres backend serving `db`'s database has used so far, by pid (the server runs on
 * this machine). Only one side runs at a time, so the growth over a turn is that side's Postgres work, the
 * worker's relay included.
 */
async function postgresCpu(db: Queryable): Promise<Map<number, number>> {
  const pids = await db.map("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", [], (r: { pid: number }) => r.pid);
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s !== undefined) cpu.set(pid, s);
  }
  return cpu;
}

/**
 * What the backends used between two readings. A backend that exited meanwhile is left out: pools close
 * only connections idle for seconds (longer than a turn), which used nothing in the turn.
 */
function postgresSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, s] of after) spent += s - (before.get(pid) ?? 0);
  return spent;
}

// --- a deployment of the bench's own: database, sealing key, task queue; every rate limit off -------------
const { database, childEnv, deps } = await benchDeployment("sessions");
const running: Running[] = [];
// The peer's database (its own tables, created by its own migrations) on the same server, when it runs.
let peerDatabase: { url: string; drop(): Promise<void> } | undefined;
let peerDb: Database | undefined;

// --- the client of the sign-in cases, the same for every side -----------------------------------------------
// A keep-alive client (./support/http-client.ts) per side and caller count, with a connection per caller.
const clients = new Map<string, ReturnType<typeof keepAliveClient>>();
/** One call of a side: GET without a body, POST with a JSON one; its status and body text. */
function call(server: Running, callers: number, path: string, body?: string): Promise<Answer> {
  const key = `${server.base} ${callers}`;
  let client = clients.get(key);
  if (!client) clients.set(key, (client = keepAliveClient(server.base, callers)));
  return client.call(body === undefined ? "GET" : "POST", path, {}, body);
}

try {
  // --- seeding through the domain's sign-in pipeline, as a verified code or signature would --------------
  const tenant = await bootstrapTenant(deps.db);
  const env = tenant.environmentId;
  const publicEnv: PublicEnvironment = { environmentId: env, environmentName: "sandbox", projectId: tenant.projectId, organizationId: tenant.organizationId };
  const meta = { ipAddress: "127.0.0.1", userAgent: "bench", requestId: "" };
  const started = Date.now();
  const sessions = await inBatches(SESSIONS, 8, (i) => signInWith(deps, publicEnv, { kind: "email", email: `bench-${i}@bench.example.com` }, meta));
  const tokens = sessions.map((s) => s.tokens.jwt);
  // The refresh case has sessions of its own: a refresh rotates its token, and a session whose spent token
  // came back later is revoked (reuse detection), which must not touch the sessions the checks use.
  const refreshSessions = await inBatches(SESSIONS, 8, (i) => signInWith(deps, publicEnv, { kind: "email", email: `bench-refresh-${i}@bench.example.com` }, meta));
  const returning = throwawayWallets(RETURNING);
  await inBatches(RETURNING, 8, (i) =>
    signInWith(deps, publicEnv, { kind: "wallet", chain: "EVM", address: normalizeWalletAddress("EVM", returning[i]!.address), walletName: "metamask", walletProvider: "browserExtension" }, meta),
  );
  // Distinct valid tokens of the same sessions: the real token's claims with an earlier expiry each, signed
  // with the environment's key, as long as the real one (the verification hashes every byte).
  const key = await deps.sessionKeys.signingKey(env);
  const coldTokens = await inBatches(COLD_TOKENS, 64, (i) => {
    const real = tokens[i % tokens.length]!;
    const claims = decodeJwt(real);
    return new SignJWT({ ...claims, exp: claims.exp! - 1 - Math.floor(i / tokens.length) }).setProtectedHeader(decodeProtectedHeader(real) as { alg: string }).sign(key.key);
  });
  console.log(`seeded ${2 * SESSIONS} sessions, ${RETURNING} wallet users and ${COLD_TOKENS} tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Statistics as autovacuum leaves them within its first minute of a deployment this size: a database
  // analysed while empty plans for empty tables (see docs/benchmarks.md, 2026-11-27), which is not the
  // steady state a rate is measured in.
  await deps.db.none("ANALYZE");

  // --- the servers: the worker first (the api is ready only once a worker polls its task queue) ----------
  const worker = await startSigil("worker", port + 10, [], childEnv);
  running.push(worker);
  // When each server started: a profile's clock starts there.
  const spawned = { sigil: Date.now(), bare: 0 };
  const sigil = await startSigil("api", port, profiled("sigil"), childEnv);
  running.push(sigil);
  spawned.bare = Date.now();
  const bare = await startBaseline("sessions-server.ts", port + 1, port + 1, profiled("bare"), { ...childEnv, BENCH_ENV: env });
  running.push(bare);
  const sdk = `/api/v0/sdk/${env}`;
  let peer: Running | undefined;
  if (cases.has("peer") && PEER) {
    peerDatabase = await createEmptyDatabase(benchServers().databaseUrl, "better_auth_bench");
    peerDb = connectDatabase(peerDatabase.url, { max: 1 });
    peer = await startPeer("better-auth", port + 2, { DATABASE_URL: peerDatabase.url });
    running.push(peer);
  }
  const rotating = (list: readonly string[]) => {
    let i = 0;
    return () => ({ authorization: `Bearer ${list[i++ % list.length]}` });
  };
  const check = (server: Running, s: number, opts: { list: readonly string[]; memo?: boolean }) =>
    httpLoad({ url: `${server.base}${server === bare && opts.memo ? "/memo" : ""}${sdk}/session`, headersFor: rotating(opts.list), connections, seconds: s });
  // A refresh spends the token it is called with: each session's slot takes the token its refresh answered.
  // A slot whose answer never came (cut off at the end of a turn) or failed holds a spent token: it leaves
  // the rotation rather than replay that token (which would be refused, and later revoke its session).
  const refreshable = refreshSessions.map((s) => s.tokens.jwt);
  let live = refreshable.map((_, slot) => slot);
  const inFlight = new Set<number>();
  let nextRefresh = 0;
  const refresh = async (server: Running, s: number, width = connections) => {
    live = live.filter((slot) => !inFlight.has(slot));
    inFlight.clear();
    return httpLoad({
      url: `${server.base}${sdk}/refresh`,
      method: "POST",
      headersFor: () => {
        const slot = live[nextRefresh++ % live.length]!;
        inFlight.add(slot);
        return { authorization: `Bearer ${refreshable[slot]}`, "x-bench-slot": String(slot) };
      },
      onAnswer: (sent, status, body) => {
        const slot = Number(sent["x-bench-slot"]);
        if (status !== 200) {
          live = live.filter((l) => l !== slot);
          return;
        }
        refreshable[slot] = (JSON.parse(body) as { jwt: string }).jwt;
        inFlight.delete(slot);
      },
      connections: width,
      seconds: s,
    });
  };

  // SIWE: per side and phase, every turn's result, for the phase rows under the sign-in rows.
  const phases = new Map<string, Result[]>();
  const note = (key: string, r: Result) => phases.set(key, [...(phases.get(key) ?? []), r]);
  const errors = new Set<string>();
  const verifyRate = new Map<string, number>();
  async function signIns(server: Running, s: number, kind: string, walletFor: (i: number) => PrivateKeyAccount): Promise<Result> {
    const side = server === bare ? "bare" : "sigil";
    // As many sign-ins as this side verified per second last time fit in the turn (with a margin): nonces
    // fetched and signed but never verified would cost the turn's CPU per sign-in and the client's time.
    const expected = verifyRate.get(side) ?? Infinity;
    const budget = Math.min(SIGN_INS, Math.ceil(expected * s * 1.3) + 20);
    const nonces: string[] = [];
    const n = await drainLoad(
      Array.from({ length: budget }, (_, i) => i),
      async () => {
        const r = await call(server, connections, `${sdk}/nonce`);
        if (r.status !== 200) throw new Error(`nonce ${r.status} ${r.text.slice(0, 300)}`);
        nonces.push((JSON.parse(r.text) as { nonce: string }).nonce);
      },
      connections,
      s,
    );
    const bodies = await signedVerifyBodies(nonces, walletFor);
    const v = await drainLoad(
      bodies,
      async (body) => {
        const r = await call(server, connections, `${sdk}/verify`, body);
        if (r.status !== 200) throw new Error(`verify ${r.status} ${r.text.slice(0, 300)}`);
      },
      connections,
      s,
    );
    for (const e of [n.firstError, v.firstError]) if (e) errors.add(`${side} ${kind}: ${e}`);
    verifyRate.set(side, v.ok / v.elapsed);
    note(`${side} ${kind} nonce`, n);
    note(`${side} ${kind} verify`, v);
    // A sign-in is one nonce and one verify: the time of each per call, added up, served one after the other.
    const perSignIn = n.elapsed / Math.max(1, n.ok) + v.elapsed / Math.max(1, v.ok);
    return { rps: v.ok ? Math.round(1 / perSignIn) : 0, p50: v.p50, p99: v.p99, ok: v.ok, failed: n.failed + v.failed };
  }
  /**
   * A side of the peer method: where its nonce and verify are, and its verify bodies (Sigil's and the bare
   * server's the published client's VerifyRequest; Better Auth's {message, signature}, its nonce a POST).
   */
  interface PeerSide {
    name: "bare" | "sigil" | "peer";
    server: Running;
    nonce: { path: string; body?: string };
    verify: string;
    bodies(nonces: readonly string[], wallet: PrivateKeyAccount): Promise<string[]>;
  }
  const sdkSide = (name: "bare" | "sigil", server: Running): PeerSide => ({
    name,
    server,
    nonce: { path: `${sdk}/nonce` },
    verify: `${sdk}/verify`,
    bodies: (nonces, wallet) => signedVerifyBodies(nonces, () => wallet),
  });
  const peerSides: PeerSide[] = [sdkSide("bare", bare), sdkSide("sigil", sigil)];
  if (peer) peerSides.push({ name: "peer", server: peer, nonce: { path: "/api/auth/siwe/nonce", body: "{}" }, verify: "/api/auth/siwe/verify", bodies: signedPeerBodies });
  /**
   * The peer method: n nonces at PEER_CONNECTIONS callers (timed), n messages of one wallet signed here
   * (not timed), the n verifies at PEER_CONNECTIONS callers, each body once (timed). No time limit: the
   * method times a fixed number of sign-ins.
   */
  async function peerSignIns(side: PeerSide, n: number, wallet: PrivateKeyAccount) {
    const nonces: string[] = [];
    const noncePhase = await drainLoad(
      Array.from({ length: n }, (_, i) => i),
      async () => {
        const r = await call(side.server, PEER_CONNECTIONS, side.nonce.path, side.nonce.body);
        if (r.status !== 200) throw new Error(`nonce ${r.status} ${r.text.slice(0, 300)}`);
        nonces.push((JSON.parse(r.text) as { nonce: string }).nonce);
      },
      PEER_CONNECTIONS,
      3_600,
    );
    const bodies = await side.bodies(nonces, wallet);
    const verifyPhase = await drainLoad(
      bodies,
      async (body) => {
        const r = await call(side.server, PEER_CONNECTIONS, side.verify, body);
        if (r.status !== 200) throw new Error(`verify ${r.status} ${r.text.slice(0, 300)}`);
      },
      PEER_CONNECTIONS,
      3_600,
    );
    for (const e of [noncePhase.firstError, verifyPhase.firstError]) if (e) errors.add(`${side.name === "peer" ? "Better Auth" : side.name} peer method: ${e}`);
    return { noncePhase, verifyPhase };
  }
  let returningAt = 0;
  // A new key per sign-in, made when its message is signed (outside the measured calls).
  const newWallet = () => throwawayWallets(1)[0]!;
  const returningWallet = () => returning[returningAt++ % returning.length]!;

  // Warm both sides (JIT, pools, key caches, token memo) before measuring.
  for (const server of [bare, sigil]) {
    await check(server, 1, { list: tokens });
    await refresh(server, 1);
    if (cases.has("siwe")) await signIns(server, 1, "warm-up", returningWallet);
  }
  // The peer method's wallet is a returning one on every side: seeded for Sigil's database, and signed in
  // once alone on the peer's before its warm-up (first sign-ins of one wallet together race to create it).
  if (cases.has("peer")) {
    if (peer) await peerSignIns(peerSides.find((p) => p.name === "peer")!, 1, returning[0]!);
    for (const side of peerSides) await peerSignIns(side, 100, returning[0]!);
  }
  errors.clear();
  phases.clear();
  const measuredAt = Date.now();

  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");
  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${connections} connections, ${seconds} s per side and case, ${ROUNDS} turns; load average ${load()}`);
  console.log(TABLE_HEADER);
  const turns = { rounds: ROUNDS, seconds };
  // Per case and side: the Postgres backends' CPU over the side's turns, and the requests answered.
  const postgres: { name: string; us: [number, number] }[] = [];
  async function measure(name: string, run: (server: Running, s: number) => Promise<Result>): Promise<void> {
    const spent = [0, 0];
    const answered = [0, 0];
    const counted = async (server: Running, s: number) => {
      const side = server === bare ? 0 : 1;
      const before = await postgresCpu(deps.db);
      const r = await run(server, s);
      spent[side]! += postgresSpent(before, await postgresCpu(deps.db));
      answered[side]! += r.ok;
      return r;
    };
    console.log(row(name, await paired(bare, sigil, counted, turns)));
    const perRequest = (side: number) => Math.round((spent[side]! * 1e6) / Math.max(1, answered[side]!));
    postgres.push({ name, us: [perRequest(1), perRequest(0)] });
  }
  if (cases.has("check")) {
    const one = [tokens[0]!];
    await measure("session check, 1 token (Sigil: memo hit) vs bare verifying every call", (sv, s) => check(sv, s, { list: one }));
    await measure("session check, 1 token vs bare + the same memo", (sv, s) => check(sv, s, { list: one, memo: true }));
  }
  if (cases.has("check") || cases.has("hot")) {
    await measure(`session check, ${SESSIONS} tokens round-robin (Sigil: memo hits) vs bare verifying every call`, (sv, s) => check(sv, s, { list: tokens }));
    await measure(`session check, ${SESSIONS} tokens round-robin vs bare + the same memo`, (sv, s) => check(sv, s, { list: tokens, memo: true }));
  }
  if (cases.has("check") || cases.has("cold"))
    await measure(`session check, ${COLD_TOKENS} tokens round-robin (every call a full verification on both sides)`, (sv, s) => check(sv, s, { list: coldTokens }));
  if (cases.has("refresh")) await measure(`refresh, ${SESSIONS} sessions round-robin`, refresh);
  if (cases.has("siwe")) {
    const workerCpu = cpuSeconds(worker.child);
    await measure("SIWE sign-ins/s, new wallets (nonce + verify; p50/p99 of verify)", (sv, s) => signIns(sv, s, "new", newWallet));
    await measure(`SIWE sign-ins/s, ${RETURNING} returning wallets (nonce + verify; p50/p99 of verify)`, (sv, s) => signIns(sv, s, "returning", returningWallet));
    // Every sign-in's events (user.created, wallet.linked, user.session.created) go through the outbox,
    // which the worker relays: its CPU is part of a sign-in's cost on this machine.
    const signedIn = [...phases].filter(([k]) => k.endsWith("verify")).reduce((n, [, rs]) => n + rs.reduce((m, r) => m + r.ok, 0), 0);
    const workerSpent = (cpuSeconds(worker.child) ?? NaN) - (workerCpu ?? NaN);
    for (const kind of ["new", "returning"])
      for (const phase of ["nonce", "verify"]) {
        const [b, g] = [phases.get(`bare ${kind} ${phase}`), phases.get(`sigil ${kind} ${phase}`)];
        if (b && g) console.log(row(`${phase} alone (${kind} wallets)`, [summarise(b), summarise(g)]));
      }
    console.log(`\nworker CPU during the sign-in cases: ${Math.round((workerSpent * 1e6) / signedIn)} µs per sign-in (${signedIn} sign-ins, both sides)`);
  }
  if (cases.has("peer")) {
    // One returning wallet, as the peer's method signs in: its user was signed in once while seeding (Sigil's
    // database) and in the warm-up (the peer's).
    const wallet = returning[0]!;
    type Name = PeerSide["name"];
    const turnsOf: Record<Name, Awaited<ReturnType<typeof peerSignIns>>[]> = { bare: [], sigil: [], peer: [] };
    const refreshes = { bare: [] as Result[], sigil: [] as Result[] };
    const postgresUs: Record<Name, number> = { bare: 0, sigil: 0, peer: 0 };
    // CPU per sign-in is what a shared machine moves least: the server's own, Postgres's, the worker's
    // (relaying the sign-in's events; Sigil only, the bare server and the peer have none).
    const serverUs: Record<Name, number> = { bare: 0, sigil: 0, peer: 0 };
    let workerSpent = 0;
    const refreshUs = { bare: 0, sigil: 0 };
    for (let round = 0; round < ROUNDS; round++)
      for (const side of peerSides) {
        const { name, server } = side;
        // The peer's tables are in a database of its own: its backends are the ones serving that one.
        const db = name === "peer" ? peerDb! : deps.db;
        const before = await postgresCpu(db);
        const [serverBefore, workerBefore] = [cpuSeconds(server.child) ?? NaN, cpuSeconds(worker.child) ?? NaN];
        const r = await peerSignIns(side, PEER_SIGN_INS, wallet);
        serverUs[name] += (cpuSeconds(server.child) ?? NaN) - serverBefore;
        if (name === "sigil") workerSpent += (cpuSeconds(worker.child) ?? NaN) - workerBefore;
        postgresUs[name] += postgresSpent(before, await postgresCpu(db));
        turnsOf[name].push(r);
        // The peer has no refresh of a session that compares (its session is a cookie it looks up).
        if (name === "peer") continue;
        const [pgBefore, cpuBefore] = [await postgresCpu(deps.db), cpuSeconds(server.child) ?? NaN];
        const refreshed = await refresh(server, seconds / ROUNDS, PEER_CONNECTIONS);
        refreshUs[name] += (cpuSeconds(server.child) ?? NaN) - cpuBefore + postgresSpent(pgBefore, await postgresCpu(deps.db));
        refreshes[name].push(refreshed);
      }
    const rates = (name: Name) => {
      const ts = turnsOf[name];
      const ok = ts.reduce((n, t) => n + t.verifyPhase.ok, 0);
      const nonceTime = ts.reduce((n, t) => n + t.noncePhase.elapsed, 0);
      const verifyTime = ts.reduce((n, t) => n + t.verifyPhase.elapsed, 0);
      const latencies = ts.flatMap((t) => t.verifyPhase.latencies ?? []).sort((a, b) => a - b);
      return {
        signIns: Math.round(ok / (nonceTime + verifyTime)),
        verify: Math.round(ok / verifyTime),
        p50: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
        p99: Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0),
        failed: ts.reduce((n, t) => n + t.noncePhase.failed + t.verifyPhase.failed, 0),
        postgresUs: Math.round((postgresUs[name] * 1e6) / Math.max(1, ok)),
        serverUs: Math.round((serverUs[name] * 1e6) / Math.max(1, ok)),
        workerUs: Math.round((workerSpent * 1e6) / Math.max(1, ok)),
      };
    };
    const refreshRates = (name: "bare" | "sigil") => {
      const refreshed = summarise(refreshes[name]);
      return { rps: refreshed.rps, p99: refreshed.p99, us: Math.round((refreshUs[name] * 1e6) / Math.max(1, refreshed.ok)) };
    };
    const [b, g, p] = [rates("bare"), rates("sigil"), peer ? rates("peer") : undefined];
    const [rb, rg] = [refreshRates("bare"), refreshRates("sigil")];
    const pct = (x: number, y: number) => `${Math.round((100 * x) / Math.max(1, y))} %`;
    // What 2 quiet cores would carry at this cost, the load generator left out: the bound a loaded run hides.
    const cores = os.cpus().length;
    const bound = (us: number) => Math.round((cores * 1e6) / Math.max(1, us));
    // A row: Sigil, bare, the peer (its column only when it ran), Sigil / bare.
    const line = (label: string, sigilCell: string | number, bareCell: string | number, peerCell: string | number, ratio = "-") =>
      console.log(`| ${label} | ${sigilCell} | ${bareCell} |${p ? ` ${peerCell} |` : ""} ${ratio} |`);
    console.log(`\n### peer method: ${PEER_CONNECTIONS} connections, ${PEER_SIGN_INS} sign-ins of one returning wallet per turn, ${ROUNDS} turns per side`);
    console.log(`| | Sigil | bare node:http |${p ? " Better Auth 1.7.25 |" : ""} Sigil / bare |\n|---|---|---|${p ? "---|" : ""}---|`);
    line("sign-ins/s (N / (nonce time + verify time))", g.signIns, b.signIns, p?.signIns ?? "", pct(g.signIns, b.signIns));
    line("verify/s", g.verify, b.verify, p?.verify ?? "", pct(g.verify, b.verify));
    line("verify p50 / p99 ms", `${g.p50} / ${g.p99}`, `${b.p50} / ${b.p99}`, p ? `${p.p50} / ${p.p99}` : "");
    line(`refresh/s (p99 ms), ${PEER_CONNECTIONS} connections`, `${rg.rps} (${rg.p99})`, `${rb.rps} (${rb.p99})`, "-", pct(rg.rps, rb.rps));
    line("server CPU µs per sign-in (nonce + verify)", g.serverUs, b.serverUs, p?.serverUs ?? "");
    line("Postgres CPU µs per sign-in", g.postgresUs, b.postgresUs, p?.postgresUs ?? "");
    line("worker CPU µs per sign-in", g.workerUs, "-", "-");
    line(`${cores} cores / CPU per sign-in (server + Postgres + worker)`, bound(g.serverUs + g.postgresUs + g.workerUs), bound(b.serverUs + b.postgresUs), p ? bound(p.serverUs + p.postgresUs) : "");
    line(`refresh: server + Postgres CPU µs per refresh (${cores} cores / that)`, `${rg.us} (${bound(rg.us)})`, `${rb.us} (${bound(rb.us)})`, "-");
    line("failed calls", g.failed, b.failed, p?.failed ?? "");
    if (p) {
      const times = (x: number, y: number) => (x / Math.max(1, y)).toFixed(1);
      console.log(`\nSigil / Better Auth: ${times(g.signIns, p.signIns)} x (target >= 2 x); verify/s ${times(g.verify, p.verify)} x; CPU per sign-in, Better Auth / Sigil: ${times(p.serverUs + p.postgresUs, g.serverUs + g.postgresUs + g.workerUs)} x`);
    } else console.log("\nBetter Auth not run (BENCH_PEER=off): no Sigil / Better Auth ratio.");
    console.log(`${PEER_RECORDED}. Target refresh >= 1,500/s.`);
  }
  console.log("\n| case | Postgres CPU µs/req, Sigil | baseline |\n|---|---|---|");
  for (const p of postgres) console.log(`| ${p.name} | ${p.us[0]} | ${p.us[1]} |`);
  console.log(`\nload average at the end ${load()}. Machine load from other processes moves absolute numbers; compare the ratios.`);
  for (const e of errors) console.log(`first error: ${e}`);
  if (profileDir) {
    // The profiles are written when the servers exit.
    await sigil.stop();
    await bare.stop();
    printProfile("sigil", measuredAt - spawned.sigil);
    printProfile("bare", measuredAt - spawned.bare);
  }
} finally {
  for (const client of clients.values()) await client.close();
  for (const r of running.reverse()) await r.stop();
  await deps.close();
  await database.drop();
  if (peerDb) await closeDatabase(peerDb);
  await peerDatabase?.drop();
}
