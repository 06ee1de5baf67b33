import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SealingKey } from "../../src/crypto/seal.js";
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { buildDeps } from "../../src/deps.js";
import type { Deps } from "../../src/domain/deps.js";
import { effectiveSettings, jwtLifetimeSeconds } from "../../src/domain/environments/settings.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { webhookSecretAad } from "../../src/domain/webhooks/secret.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDualServer } from "../../src/server/listen.js";
import { createStore } from "../../src/store/store.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { sdkFor } from "../support/sdk-client.js";
import { keysSetting, newKey, openEverySealedValue, sealersOf, seedSealedValues, totalsByKey } from "../support/sealed-values.js";
import { signInAs } from "../support/sessions.js";

/**
 * Rotation of the keys, as an operator does it on a live deployment (docs/runbook.md, "Key rotation"):
 * `sigil keys reseal` moves every sealed value from the old key to the new one while the service serves with
 * [new, old], survives being killed half-way, and then the old key can go; `sigil keys rotate-signing` gives
 * environments new JWT signing keys while the tokens signed before keep verifying.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const A = newKey("keyA");
const B = newKey("keyB");
const backup = newKey("backup1");
const TENANTS = 6;
const WEBHOOKS_PER_ENVIRONMENT = 6;

let app: TestApp;
let dataDir: string;
const tenants: BootstrapResult[] = [];
/** The test account code of each environment, as the service last gave it. */
const codes = new Map<string, string>();

let runtimes = 0;

/** An api process of the same deployment (database, store) configured with `keys`, with its own caches. */
async function startRuntime(keys: SealingKey[]) {
  const config = { ...app.config, sealingKeys: keys };
  // A name of its own: pg-promise warns of two database objects of one connection in a process.
  const url = new URL(config.databaseUrl!);
  url.searchParams.set("application_name", `runtime-${++runtimes}`);
  const db = connectDatabase(url.toString(), { max: 5 });
  const store = await createStore(config.redisUrl, { keyPrefix: app.storePrefix });
  const deps: Deps = buildDeps({ config, db, store, flows: app.deps.flows });
  const server = createDualServer(createApiHandler(deps, []));
  const port = await server.listen(0, "127.0.0.1");
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    /** What signInAs needs of a TestApp: this runtime's deps and database. */
    asApp: { ...app, deps, db } as TestApp,
    async stop() {
      await server.close();
      await store.close();
      await closeDatabase(db);
    },
  };
}
type Runtime = Awaited<ReturnType<typeof startRuntime>>;

const cliEnv = (keys: SealingKey[]): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  SIGIL_DATA_DIR: dataDir,
  DATABASE_URL: app.config.databaseUrl,
  SIGIL_SEALING_KEYS: keysSetting(keys),
  SIGIL_BACKUP_SEALING_KEYS: keysSetting([backup]),
});

/** `node bin/sigil.js keys ... --json` to completion: exit code and its JSON. */
function sigilKeys(args: string[], keys: SealingKey[]): Promise<{ code: number; body: any; stderr: string }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["bin/sigil.js", "keys", ...args, "--json"], { cwd: repoRoot, env: cliEnv(keys), timeout: 120_000 }, (err, stdout, stderr) => {
      try {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, body: JSON.parse(stdout), stderr });
      } catch {
        reject(new Error(`sigil keys ${args.join(" ")} printed no JSON (${String(err)}):\n${stdout}\n${stderr}`));
      }
    }),
  );
}

/** What the service answers for an environment's test account code (a read of a sealed value). */
async function testAccountCode(baseUrl: string, t: BootstrapResult) {
  const res = await call(baseUrl, "GET", `/environments/${t.environmentId}/test/account`, { token: t.token });
  expect(res.status, res.text).toBe(200);
  return res.body.testAccount?.code ?? res.body.code;
}

/** A signed-in session (opens the environment's sealed signing key) whose JWT the service accepts. */
async function signInAndCheck(runtime: Runtime, environmentId: string) {
  const s = await signInAs(runtime.asApp, environmentId);
  await sdkFor(runtime.baseUrl, s.jwt).sessionCheck({ environmentId });
  return s;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-keys-"));
  // The deployment before the rotation: every value sealed under key A.
  app = await startTestApp({ sealingKeys: [A], backups: { sealingKeys: [backup], cloudDriveUrl: "http://127.0.0.1:9" } });
  for (let i = 0; i < TENANTS; i++) {
    const t = await app.bootstrap();
    tenants.push(t);
    for (const [env, code] of await seedSealedValues(app.deps, app.deps.sealer, t, WEBHOOKS_PER_ENVIRONMENT)) codes.set(env, code);
  }
}, 180_000);
afterAll(async () => {
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("sealing key rotation", () => {
  it("reseals under B while the service serves with [B, A]; killed half-way it leaves every value whole; rerun, A can go", async () => {
    const total = TENANTS * 2 * (2 + WEBHOOKS_PER_ENVIRONMENT);
    expect(totalsByKey(await openEverySealedValue(app.db, sealersOf([A], [backup])))).toEqual({ keyA: total });
    // Step 1 of the runbook: every process now runs with [B, A].
    const serving = await startRuntime([B, A]);
    const writes = new Map<string, string>(); // webhook id -> the secret the service returned when it rotated it
    let traffic = true;
    let served = 0;
    // The service at work meanwhile: reads of sealed values (test account codes, signing keys for new
    // sessions) and writes of new ones (webhook secrets rotated through the API).
    const work = (async () => {
      for (let round = 0; traffic; round++) {
        const t = tenants[round % TENANTS]!;
        expect(await testAccountCode(serving.baseUrl, t)).toBe(codes.get(t.environmentId));
        await signInAndCheck(serving, t.environmentId);
        const [w] = await app.db.any("SELECT id FROM webhooks WHERE environment_id = $1 ORDER BY id OFFSET $2 LIMIT 1", [t.environmentId, round % WEBHOOKS_PER_ENVIRONMENT]);
        const rotated = await call(serving.baseUrl, "POST", `/environments/${t.environmentId}/webhooks/${w.id}/secret/rotate`, { token: t.token });
        expect(rotated.status, rotated.text).toBe(200);
        writes.set(w.id, (rotated.body.webhook ?? rotated.body).secret);
        served++;
      }
    })();
    try {
      // The reseal, slowed to a batch of 4 every 150 ms so that it is surely caught half-way.
      const child = spawn(process.execPath, ["bin/sigil.js", "keys", "reseal", "--batch-size", "4", "--pause-ms", "150", "--json"], {
        cwd: repoRoot,
        env: cliEnv([B, A]),
        stdio: "ignore",
      });
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
      // Killed once a few batches have committed (the values it resealed, not the service's writes, counted).
      await waitFor(
        "the reseal to commit its first batches",
        async () => (await app.db.one("SELECT count(*)::int AS n FROM environment_signing_keys WHERE private_key_sealed LIKE 'v1.keyB.%'")).n,
        { until: (n) => n >= 8, intervalMs: 20, timeoutMs: 60_000 },
      );
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");

      // Consistent half-way: every value opens under [B, A]; some under B, some still under A.
      const half = totalsByKey(await openEverySealedValue(app.db, sealersOf([B, A], [backup])));
      expect(half.keyA).toBeGreaterThan(0);
      expect(half.keyB).toBeGreaterThanOrEqual(8);
      expect(half.keyA! + half.keyB!).toBe(total);

      // Resumed: run again to completion, the service still at work.
      const rerun = await sigilKeys(["reseal", "--batch-size", "4", "--pause-ms", "20"], [B, A]);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.body).toMatchObject({ unopenable: 0 });
      expect(rerun.body.resealed).toBeGreaterThan(0);
      expect(rerun.body.resealed).toBeLessThan(half.keyA! + 1);
    } finally {
      traffic = false;
      await work;
      await serving.stop();
    }
    expect(served).toBeGreaterThan(0);

    // Nothing left under A: the operator may remove it.
    const status = await sigilKeys(["status"], [B, A]);
    expect(status.code).toBe(0);
    expect(status.body.keys).toEqual([
      { keySet: "sealing", keyId: "keyB", key: "current", count: total },
    ]);

    // A deployment with only B serves everything, and every secret the service wrote during the reseal is
    // the one it returned (the reseal's compare-and-swap never put back an older value over it).
    const onlyB = await startRuntime([B]);
    try {
      expect(totalsByKey(await openEverySealedValue(app.db, sealersOf([B], [backup])))).toEqual({ keyB: total });
      for (const t of tenants) {
        expect(await testAccountCode(onlyB.baseUrl, t)).toBe(codes.get(t.environmentId));
        await signInAndCheck(onlyB, t.environmentId);
        await signInAndCheck(onlyB, t.liveEnvironmentId);
      }
      expect(writes.size).toBeGreaterThan(0);
      const sealer = sealersOf([B], [backup]).sealing;
      for (const [id, secret] of writes) {
        const row = await app.db.one("SELECT secret_sealed FROM webhooks WHERE id = $1", [id]);
        expect(sealer.open(row.secret_sealed, webhookSecretAad(id))).toBe(secret);
      }
    } finally {
      await onlyB.stop();
    }
  }, 240_000);
});

describe("signing key rotation", () => {
  it("a new key signs new tokens, the old one stays in the JWKS and its tokens keep verifying", async () => {
    const serving = await startRuntime([B, A]);
    try {
      const t = tenants[0]!;
      const before = await signInAndCheck(serving, t.environmentId);
      const oldKid = decodeProtectedHeader(before.jwt).kid;
      const r = await sigilKeys(["rotate-signing", "--environment", t.environmentId], [B, A]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.body.rotated).toEqual([expect.objectContaining({ environmentId: t.environmentId, retiredKid: oldKid })]);
      const newKid = r.body.rotated[0].kid;
      expect(newKid).not.toBe(oldKid);
      // The retired key stays published as long as a token it signed can live: the environment's token
      // lifetime (unchanged since the key was made), within the session max age.
      const { settings } = await app.db.one("SELECT settings FROM environments WHERE id = $1", [t.environmentId]);
      const lifetimeMs = 1000 * Math.min(jwtLifetimeSeconds(effectiveSettings(settings).security), app.config.sessionMaxAgeSeconds);
      expect(Date.parse(r.body.rotated[0].publishedUntil) - Date.now()).toBeGreaterThan(lifetimeMs - 60_000);
      expect(Date.parse(r.body.rotated[0].publishedUntil) - Date.now()).toBeLessThanOrEqual(lifetimeMs);

      const jwks = await sdkFor(serving.baseUrl).getJwksByEnvironmentId({ environmentId: t.environmentId });
      expect(jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
      // The token issued before still verifies, on this process and on one started after the rotation.
      await sdkFor(serving.baseUrl, before.jwt).sessionCheck({ environmentId: t.environmentId });
      const fresh = await startRuntime([B, A]);
      try {
        await sdkFor(fresh.baseUrl, before.jwt).sessionCheck({ environmentId: t.environmentId });
        // New tokens carry the new kid, and a process that still has the old keys cached verifies them.
        const after = await signInAndCheck(fresh, t.environmentId);
        expect(decodeProtectedHeader(after.jwt).kid).toBe(newKid);
        await sdkFor(serving.baseUrl, after.jwt).sessionCheck({ environmentId: t.environmentId });
      } finally {
        await fresh.stop();
      }
      // In the environment's audit trail, as the CLI's change (no token or member), with the command's request id.
      const audit = await app.db.one("SELECT * FROM audit_log WHERE resource_id = $1 AND action = 'environment.signing_key_rotated'", [t.environmentId]);
      expect(audit).toMatchObject({ environment_id: t.environmentId, request_id: r.body.requestId });
    } finally {
      await serving.stop();
    }
  }, 120_000);

  it("--all goes through every environment in batches and resumes with the --created-before it printed", async () => {
    const startedAt = new Date();
    // An environment rotated after that instant (as by a run that got that far before it was killed).
    const done = tenants[1]!.environmentId;
    expect((await sigilKeys(["rotate-signing", "--environment", done], [B, A])).code).toBe(0);
    const run = await sigilKeys(["rotate-signing", "--all", "--created-before", startedAt.toISOString(), "--batch-size", "3"], [B, A]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`--created-before ${startedAt.toISOString()}`);
    const rotated = run.body.rotated.map((r: { environmentId: string }) => r.environmentId);
    expect(rotated).not.toContain(done);
    expect(rotated).toContain(tenants[2]!.environmentId);
    expect(rotated).toContain(tenants[2]!.liveEnvironmentId);
    expect(new Set(rotated).size).toBe(rotated.length);
    // Run again with the same instant: nothing is left to rotate.
    const again = await sigilKeys(["rotate-signing", "--all", "--created-before", startedAt.toISOString()], [B, A]);
    expect(again.body.rotated).toEqual([]);
    // Every environment has one current key, and no more than the keys its live tokens need are published.
    const currents = await app.db.any("SELECT environment_id, count(*)::int AS n FROM environment_signing_keys WHERE retired_at IS NULL GROUP BY 1");
    expect(currents.every((c: { n: number }) => c.n === 1)).toBe(true);
  }, 120_000);

  it("refuses a bad command line: neither or both of --environment and --all, an unknown environment", async () => {
    const neither = await sigilKeys(["rotate-signing"], [B, A]);
    expect(neither.code).toBe(2);
    expect(neither.body.code).toBe("bad_usage");
    const unknown = await sigilKeys(["rotate-signing", "--environment", "00000000-0000-4000-8000-000000000000"], [B, A]);
    expect(unknown.code).toBe(1);
    expect(unknown.body.code).toBe("not_found");
  }, 60_000);
});
