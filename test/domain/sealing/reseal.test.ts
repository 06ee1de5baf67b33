import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { createSealer } from "../../../src/crypto/seal.js";
import { sealedRowsNotUnder, swapSealedValues } from "../../../src/db/repositories/sealed-columns.js";
import { SEALED_COLUMNS, sealedColumnName } from "../../../src/domain/sealing/registry.js";
import { resealColumn } from "../../../src/domain/sealing/reseal.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { readBackup, storeBackup } from "../../../src/domain/waas/threshold/backup-vault.js";
import { webhookSecretAad } from "../../../src/domain/webhooks/secret.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { newKey, openEverySealedValue, sealersOf, seedSealedValues, totalsByKey } from "../../support/sealed-values.js";

/**
 * Resealing (src/domain/sealing/reseal.ts, `sigil keys reseal|status`): every value under an old key moves to
 * the current one in batches, a write of the service between a batch's read and its write wins, and a value
 * no key opens is reported and left as it is.
 */

const A = newKey("keyA");
const B = newKey("key_B"); // "_" is a LIKE wildcard: the selection must not read it as one
const backup = newKey("backup1");
let app: TestApp;
let t: BootstrapResult;
const webhooks = SEALED_COLUMNS.find((c) => sealedColumnName(c) === "webhooks.secret_sealed")!;

/** Runs `sigil keys ...` in this process against the app's database; its stdout (JSON) parsed, and its exit code. */
async function keys(args: string[], sealing = [B, A], backups = [backup]) {
  const out: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
  const err = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const code = await keysCommand([...args, "--json"], { ...app.config, sealingKeys: sealing, backups: { ...app.config.backups, sealingKeys: backups } });
    return { code, body: JSON.parse(out.join("\n")) };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

beforeAll(async () => {
  app = await startTestApp({ sealingKeys: [B, A], backups: { sealingKeys: [backup], cloudDriveUrl: "http://127.0.0.1:9" } });
  t = await app.bootstrap();
  await seedSealedValues(app.deps, createSealer([A]), t, 6);
}, 120_000);
afterAll(() => app?.stop());

describe("sigil keys reseal", () => {
  it("moves every value to the current key in batches; status counts per key; a second run finds nothing", async () => {
    const before = await keys(["status"]);
    const webhooksBefore = before.body.columns.find((c: { column: string }) => c.column === "webhooks.secret_sealed");
    expect(webhooksBefore.keys).toEqual([{ keyId: "keyA", count: 12, key: "old" }]);
    expect(before.body.keys).toContainEqual({ keySet: "sealing", keyId: "keyA", key: "old", count: 16 });

    const run = await keys(["reseal", "--batch-size", "5"]);
    expect(run.code).toBe(0);
    expect(run.body).toMatchObject({ resealed: 16, changed: 0, unopenable: 0 });
    expect(run.body.columns.find((c: { column: string }) => c.column === "webhooks.secret_sealed")).toMatchObject({ resealed: 12 });

    // Every value opens with the new key alone.
    expect(totalsByKey(await openEverySealedValue(app.db, sealersOf([B], [backup])))).toEqual({ key_B: 16 });
    expect((await keys(["reseal", "--batch-size", "5"])).body).toMatchObject({ resealed: 0, changed: 0, unopenable: 0 });
    const after = await keys(["status"]);
    expect(after.body.keys).toEqual([{ keySet: "sealing", keyId: "key_B", key: "current", count: 16 }]);
  });

  it("a value the service rewrote between a batch's read and its write keeps the service's value", async () => {
    const x = await app.bootstrap();
    await seedSealedValues(app.deps, createSealer([A]), x, 2);
    const rows = await sealedRowsNotUnder(app.db, webhooks, "key_B", null, 100);
    const mine = await app.db.any("SELECT id FROM webhooks WHERE environment_id = $1", [x.environmentId]);
    const target = rows.find((r) => r.key[0] === mine[0].id)!;
    // The service rotates the secret (through the API, sealed under the current key) after the read.
    const rotated = await call(app.baseUrl, "POST", `/environments/${x.environmentId}/webhooks/${target.key[0]}/secret/rotate`, { token: x.token });
    expect(rotated.status, rotated.text).toBe(200);
    const sealer = createSealer([B, A]);
    const swaps = rows.map((r) => ({ key: r.key, from: r.sealed, to: sealer.seal(sealer.open(r.sealed, webhooks.aad(r.row)), webhooks.aad(r.row)) }));
    expect(await swapSealedValues(app.db, webhooks, swaps)).toBe(rows.length - 1);
    const stored = await app.db.one("SELECT secret_sealed FROM webhooks WHERE id = $1", [target.key[0]]);
    expect(sealer.open(stored.secret_sealed, webhookSecretAad(target.key[0] as string))).toBe((rotated.body.webhook ?? rotated.body).secret);
  });

  it("a value no configured key opens is reported by its row and left as it is; the command fails", async () => {
    const x = await app.bootstrap();
    await seedSealedValues(app.deps, createSealer([A]), x, 1);
    const [w1] = await app.db.any("SELECT id, secret_sealed FROM webhooks WHERE environment_id = $1", [x.environmentId]);
    // Sealed under a key nobody configured any more.
    const lost = createSealer([newKey("keyLost")]).seal("whsec_lost", webhookSecretAad(w1.id));
    await app.db.none("UPDATE webhooks SET secret_sealed = $2 WHERE id = $1", [w1.id, lost]);
    const run = await keys(["reseal"]);
    expect(run.code).toBe(1);
    const column = run.body.columns.find((c: { column: string }) => c.column === "webhooks.secret_sealed");
    expect(column).toMatchObject({ unopenable: 1, unopenableRows: [[w1.id]] });
    expect((await app.db.one("SELECT secret_sealed FROM webhooks WHERE id = $1", [w1.id])).secret_sealed).toBe(lost);
    const status = await keys(["status"]);
    expect(status.body.keys).toContainEqual({ keySet: "sealing", keyId: "keyLost", key: "unknown", count: 1 });
    await app.db.none("DELETE FROM webhooks WHERE id = $1", [w1.id]);
  });

  it("walks past a value it cannot open (key order, not a retry of the same rows): batches of one still finish", async () => {
    const x = await app.bootstrap();
    await seedSealedValues(app.deps, createSealer([A]), x, 3);
    const rows = await app.db.any("SELECT id, secret_sealed FROM webhooks WHERE environment_id IN ($1, $2) ORDER BY id", [x.environmentId, x.liveEnvironmentId]);
    // The first row holds the second's value: bound to the second row by its aad, it does not open here.
    await app.db.none("UPDATE webhooks SET secret_sealed = $2 WHERE id = $1", [rows[0].id, rows[1].secret_sealed]);
    const batches: number[] = [];
    const r = await resealColumn(app.db, sealersOf([B, A], [backup]), webhooks, { batchSize: 1, onBatch: (n) => batches.push(n) });
    expect(r).toMatchObject({ resealed: rows.length - 1, changed: 0, unopenable: 1, unopenableRows: [[rows[0].id]] });
    expect(batches).toEqual(rows.map(() => 1));
    await app.db.none("DELETE FROM webhooks WHERE id = $1", [rows[0].id]);
  });
});

describe("the human output", () => {
  it("status: a row per column and key, and what to do next", async () => {
    const out: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
    try {
      expect(await keysCommand(["status"], { ...app.config, sealingKeys: [B, A] })).toBe(0);
    } finally {
      log.mockRestore();
    }
    const text = out.join("\n");
    expect(text).toMatch(/^COLUMN +KEY SET +KEY ID +KEY +VALUES$/m);
    expect(text).toMatch(/^webhooks\.secret_sealed +sealing +key_B +current +\d+$/m);
    expect(text).toMatch(/older keys can be removed|run `sigil keys reseal`/);
  });
});

describe("the backup sealing keys", () => {
  it("rotate on their own: backups move to the new backup key, the sealing keys are not touched", async () => {
    const x = await app.bootstrap();
    const walletId = randomUUID();
    await app.db.none("INSERT INTO waas_wallets (id, environment_id, chain, address, public_key) VALUES ($1, $2, 'EVM', $3, '04ab')", [
      walletId,
      x.environmentId,
      `0x${randomBytes(20).toString("hex")}`,
    ]);
    const backupKey = { walletId, shareSetEpoch: 1, holder: 2 };
    await storeBackup({ db: app.db, backupSealer: createSealer([backup]) }, x.environmentId, { ...backupKey, share: "the-share" });
    const backup2 = newKey("backup2");
    const run = await keys(["reseal"], [B, A], [backup2, backup]);
    expect(run.code).toBe(0);
    expect(run.body.columns.find((c: { column: string }) => c.column === "waas_share_backups.share_sealed")).toMatchObject({ keySet: "backup", resealed: 1 });
    expect(await readBackup({ db: app.db, backupSealer: createSealer([backup2]) }, x.environmentId, backupKey)).toBe("the-share");
    const status = await keys(["status"], [B, A], [backup2, backup]);
    expect(status.body.keys).toContainEqual({ keySet: "backup", keyId: "backup2", key: "current", count: 1 });
    expect(status.body.keys.filter((k: { keyId: string }) => k.keyId === "backup1")).toEqual([]);
  });
});

describe("sigil keys generate-sealing-key", () => {
  it("prints an entry SIGIL_SEALING_KEYS reads, with a fresh id; refuses an id already configured", async () => {
    const g = await keys(["generate-sealing-key"]);
    expect(g.code).toBe(0);
    expect(g.body.entry).toMatch(new RegExp(`^${g.body.id}:[A-Za-z0-9+/]{43}=$`));
    const { sealingKeys } = await import("../../../src/config-values.js");
    expect(sealingKeys({ SIGIL_SEALING_KEYS: `${g.body.entry},keyA:${A.key.toString("base64")}` }, "/nonexistent")[0]!.id).toBe(g.body.id);
    await expect(keysCommand(["generate-sealing-key", "--id", "keyA", "--json"], { ...app.config, sealingKeys: [B, A] })).rejects.toMatchObject({
      code: "sealing_key_id_taken",
    });
  });
});
