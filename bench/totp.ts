/**
 * `npm run bench:totp`: TOTP second-factor verifications per second (issue 13) through the API beside a bare
 * node:http server doing the same work (bench/baseline/totp-server.ts), taking turns (BENCH_ROUNDS, default
 * 4), BENCH_SECONDS per side (default 10), loopback only, BENCH_CONNECTIONS concurrent callers (10).
 *
 *   POST /api/v0/sdk/{env}/users/mfa/auth/totp {id, code} with a full session's JWT (a step-up: the session
 *   is renewed), every call a code the device has not accepted yet -> VerifyResponse. Sigil: the whole
 *   request path (gateway, interceptors, validation) then authenticateTotp. Baseline: the same domain steps
 *   by hand (session check, factor lock, the device row, unseal, otpauth check, the conditional UPDATE of
 *   the accepted step, passSecondFactor's transaction and token signing).
 *
 * A code is good once per device, and only within one 30-second step of now, so the load needs many
 * devices: BENCH_TOTP_USERS (200) users, each with BENCH_TOTP_DEVICES (50) verified TOTP devices, seeded in
 * SQL with sealed secrets; each call takes the next device round-robin and that device's next unused step
 * (now-1, now, now+1, then one more per 30 s). The codes are made by this process (HMAC-SHA1, a few µs).
 * Sigil runs as `sigil start api` beside `sigil start worker`, on a database of the bench's own (dropped at
 * the end), every rate limit off. Print-only: the lead records the numbers in docs/benchmarks.md.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:totp
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { Secret, TOTP } from "otpauth";
import { updateEnvironmentSettings } from "../src/db/repositories/projects.js";
import { newTotpSecret } from "../src/domain/mfa/totp.js";
import { totpSecretAad } from "../src/domain/mfa/totp-devices.js";
import { signInWith } from "../src/domain/sign-in/pipeline.js";
import type { PublicEnvironment } from "../src/domain/tenancy/access.js";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { benchDeployment } from "./support/deps.js";
import { seconds } from "./support/env.js";
import { callLoad, type Result } from "./support/load.js";
import { paired, row, TABLE_HEADER } from "./support/paired.js";
import { startBaseline, startSigil, type Running } from "./support/processes.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const USERS = Number(process.env.BENCH_TOTP_USERS ?? 200);
const DEVICES = Number(process.env.BENCH_TOTP_DEVICES ?? 50);
const port = Number(process.env.BENCH_PORT ?? 18290);
const PERIOD_MS = 30_000;

/** A seeded device: its user's session token, its secret, and the last step a code was made for. */
interface Device {
  id: string;
  jwt: string;
  secret: Secret;
  last: number;
}

/** The next (device, code) whose step the server still accepts, round-robin over the devices. */
function codeSource(devices: Device[]) {
  let at = 0;
  return (): { device: Device; code: string } => {
    const now = Math.floor(Date.now() / PERIOD_MS);
    for (let tried = 0; tried < devices.length; tried++) {
      const d = devices[at++ % devices.length]!;
      const step = Math.max(d.last + 1, now - 1);
      if (step > now + 1) continue;
      d.last = step;
      return { device: d, code: TOTP.generate({ secret: d.secret, timestamp: step * PERIOD_MS + 1, algorithm: "SHA1", digits: 6, period: 30 }) };
    }
    throw new Error("every device has used its codes for now: raise BENCH_TOTP_USERS or BENCH_TOTP_DEVICES");
  };
}

const { database, childEnv, deps } = await benchDeployment("totp");
const running: Running[] = [];

try {
  // --- seeding: MFA on (not required), users signed in before they have devices (full sessions), devices in SQL
  const tenant = await bootstrapTenant(deps.db);
  const env = tenant.environmentId;
  await updateEnvironmentSettings(deps.db, env, { security: { mfa: { enabled: true, required: false } } });
  const publicEnv: PublicEnvironment = { environmentId: env, environmentName: "sandbox", projectId: tenant.projectId, organizationId: tenant.organizationId };
  const meta = { ipAddress: "127.0.0.1", userAgent: "bench", requestId: "" };
  const started = Date.now();
  const devices: Device[] = [];
  for (let i = 0; i < USERS; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, USERS - i) }, (_, j) => signInWith(deps, publicEnv, { kind: "email", email: `totp-${i + j}@bench.example.com` }, meta)),
    );
    for (const s of batch) {
      const rows = Array.from({ length: DEVICES }, (_, k) => {
        const id = randomUUID();
        const secret = newTotpSecret();
        devices.push({ id, jwt: s.tokens.jwt, secret: Secret.fromBase32(secret), last: -Infinity });
        return { id, sealed: deps.sealer.seal(secret, totpSecretAad(id)), isDefault: k === 0 };
      });
      await deps.db.none(
        `INSERT INTO user_mfa_devices (id, environment_id, user_id, type, is_default, verified_at, totp_secret_sealed)
         SELECT d.id, $1, $2, 'totp', d.is_default, now(), d.sealed
         FROM unnest($3::uuid[], $4::boolean[], $5::text[]) AS d(id, is_default, sealed)`,
        [env, s.user.user.id, rows.map((r) => r.id), rows.map((r) => r.isDefault), rows.map((r) => r.sealed)],
      );
    }
  }
  // Interleave users, so that concurrent calls are of different users (each user's factor lock is its own).
  devices.sort((a, b) => (a.id < b.id ? -1 : 1));
  console.log(`seeded ${USERS} users with ${DEVICES} TOTP devices each in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const worker = await startSigil("worker", port + 10, [], childEnv);
  running.push(worker);
  const sigil = await startSigil("api", port, [], childEnv);
  running.push(sigil);
  const bare = await startBaseline("totp-server.ts", port + 1, port + 1, [], { ...childEnv, BENCH_ENV: env });
  running.push(bare);

  const next = codeSource(devices);
  const errors = new Set<string>();
  const authTotp = (server: Running, s: number): Promise<Result> =>
    callLoad(
      async () => {
        const { device, code } = next();
        const r = await fetch(`${server.base}/api/v0/sdk/${env}/users/mfa/auth/totp`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${device.jwt}` },
          body: JSON.stringify({ id: device.id, code }),
        });
        const text = await r.text();
        if (r.status !== 200) {
          errors.add(`${server === bare ? "bare" : "sigil"}: ${r.status} ${text.slice(0, 200)}`);
          throw new Error(String(r.status));
        }
      },
      connections,
      s,
    );

  // Warm both sides (JIT, pools, key caches, token memo) before measuring.
  for (const server of [bare, sigil]) await authTotp(server, 1);
  errors.clear();
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");
  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${connections} connections, ${seconds} s per side, ${ROUNDS} turns; load average ${load()}`);
  console.log(TABLE_HEADER);
  console.log(row("TOTP verifications/s (authMfaTotpDevice, step-up of a full session)", await paired(bare, sigil, authTotp, { rounds: ROUNDS, seconds })));
  console.log(`\nload average at the end ${load()}. Machine load from other processes moves absolute numbers; compare the ratios.`);
  for (const e of errors) console.log(`error: ${e}`);
} finally {
  for (const r of running.reverse()) await r.stop();
  await deps.close();
  await database.drop();
}
