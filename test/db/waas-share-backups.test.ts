import { randomBytes, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createSealer } from "../../src/crypto/seal.js";
import { closeDatabase, type Database } from "../../src/db/db.js";
import { readBackup, recordBackupLocation, storeBackup } from "../../src/domain/waas/threshold/backup-vault.js";
import { bootstrapTenant, type BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { migratedDatabase } from "../support/app.js";
import { failure } from "../support/domain-errors.js";

// The service's own backup location (migration 032): sealed under the backup keys, bound to its row,
// idempotent per wallet/epoch/holder/location, and tenant-scoped (tenant B never reads or writes A's).
let db: Database;
let a: BootstrapResult;
let b: BootstrapResult;
const backupSealer = createSealer([{ id: "b1", key: randomBytes(32) }]);
let deps: { db: Database; backupSealer: typeof backupSealer };

beforeAll(async () => {
  db = await migratedDatabase();
  a = await bootstrapTenant(db);
  b = await bootstrapTenant(db);
  deps = { db, backupSealer };
});
afterAll(() => closeDatabase(db));

async function wallet(environmentId: string): Promise<string> {
  const id = randomUUID();
  await db.none(
    `INSERT INTO waas_wallets (id, environment_id, chain, address, public_key) VALUES ($1, $2, 'EVM', $3, '04ab')`,
    [id, environmentId, `0x${randomBytes(20).toString("hex")}`],
  );
  return id;
}

describe("backup vault", () => {
  it("stores a share sealed under the backup key (never in clear) and reads it back", async () => {
    const walletId = await wallet(a.environmentId);
    const share = `share-${randomUUID()}`;
    await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 3, share });
    const row = await db.one("SELECT * FROM waas_share_backups WHERE wallet_id = $1", [walletId]);
    expect(row).toMatchObject({ location: "service", share_set_epoch: 1, holder: 3, reference: null });
    expect(row.share_sealed).toMatch(/^v1\.b1\./);
    expect(row.share_sealed).not.toContain(share);
    expect(await readBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 3 })).toBe(share);
    expect(await readBackup(deps, a.environmentId, { walletId, shareSetEpoch: 2, holder: 3 })).toBeNull();
  });

  it("is idempotent: storing the same wallet, epoch and holder again keeps the first backup (a retried step)", async () => {
    const walletId = await wallet(a.environmentId);
    const first = await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 4, holder: 1, share: "first" });
    const again = await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 4, holder: 1, share: "first" });
    expect(again.id).toBe(first.id);
    expect((await db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [walletId])).n).toBe(1);
  });

  it("two concurrent stores of one backup: one row, both answer it", async () => {
    const walletId = await wallet(a.environmentId);
    const [x, y] = await Promise.all([
      db.tx((t) => storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 2, share: "s" }, t)),
      db.tx((t) => storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 2, share: "s" }, t)),
    ]);
    expect(x.id).toBe(y.id);
  });

  it("tenant B neither reads nor writes A's backups (404 for A's wallet, null for A's backup)", async () => {
    const walletId = await wallet(a.environmentId);
    await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 3, share: "a's share" });
    expect(await readBackup(deps, b.environmentId, { walletId, shareSetEpoch: 1, holder: 3 })).toBeNull();
    const err = await failure(storeBackup(deps, b.environmentId, { walletId, shareSetEpoch: 1, holder: 2, share: "b's" }));
    expect(err).toMatchObject({ kind: "not_found", code: "not_found" });
    expect((await failure(recordBackupLocation(db, b.environmentId, { walletId, shareSetEpoch: 1, holder: 2, location: "cloud_drive", reference: "f" }))).kind).toBe("not_found");
    expect((await db.one("SELECT count(*)::int AS n FROM waas_share_backups WHERE wallet_id = $1", [walletId])).n).toBe(1);
  });

  it("a sealed backup moved to another row, or read with another backup key, does not open (422 backup_unreadable)", async () => {
    const walletId = await wallet(a.environmentId);
    await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 1, share: "holder one" });
    await storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 2, share: "holder two" });
    await db.none(
      `UPDATE waas_share_backups SET share_sealed = (SELECT share_sealed FROM waas_share_backups WHERE wallet_id = $1 AND holder = 1)
        WHERE wallet_id = $1 AND holder = 2`,
      [walletId],
    );
    expect((await failure(readBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 2 }))).code).toBe("backup_unreadable");
    // The live sealing key (or any other) is not the backup key.
    const other = { db, backupSealer: createSealer([{ id: "b1", key: randomBytes(32) }]) };
    expect((await failure(readBackup(other, a.environmentId, { walletId, shareSetEpoch: 1, holder: 1 }))).code).toBe("backup_unreadable");
  });

  it("records other locations by reference, once per location", async () => {
    const walletId = await wallet(a.environmentId);
    const k = { walletId, shareSetEpoch: 1, holder: 3 };
    expect(await recordBackupLocation(db, a.environmentId, { ...k, location: "cloud_drive", reference: "file-1" })).toMatchObject({ reference: "file-1" });
    expect(await recordBackupLocation(db, a.environmentId, { ...k, location: "cloud_drive", reference: "file-2" })).toMatchObject({ reference: "file-1" });
    await recordBackupLocation(db, a.environmentId, { ...k, location: "external", reference: "https://backups.example/x" });
    expect(await readBackup(deps, a.environmentId, k)).toBeNull();
    const rows = await db.any("SELECT location, reference FROM waas_share_backups WHERE wallet_id = $1 ORDER BY location", [walletId]);
    expect(rows).toEqual([
      { location: "cloud_drive", reference: "file-1" },
      { location: "external", reference: "https://backups.example/x" },
    ]);
  });

  it("refuses malformed keys with a 400", async () => {
    const walletId = await wallet(a.environmentId);
    expect((await failure(storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 0, holder: 1, share: "x" }))).code).toBe("invalid_share_set_epoch");
    expect((await failure(storeBackup(deps, a.environmentId, { walletId, shareSetEpoch: 1, holder: 256, share: "x" }))).code).toBe("invalid_backup_holder");
  });

  it("reads SIGIL_BACKUP_SEALING_KEYS, or generates a backup key into the data dir, apart from the sealing key", () => {
    const dataDir = `/tmp/sigil-config-${randomBytes(4).toString("hex")}`;
    const generated = loadConfig({ SIGIL_DATA_DIR: dataDir });
    expect(generated.backups.sealingKeys).toHaveLength(1);
    expect(generated.backups.sealingKeys[0]!.key.equals(generated.sealingKeys[0]!.key)).toBe(false);
    // The same key on the next start.
    expect(loadConfig({ SIGIL_DATA_DIR: dataDir }).backups.sealingKeys[0]!.key.equals(generated.backups.sealingKeys[0]!.key)).toBe(true);
    const key = randomBytes(32).toString("base64");
    expect(loadConfig({ SIGIL_DATA_DIR: dataDir, SIGIL_BACKUP_SEALING_KEYS: `bk2:${key}` }).backups.sealingKeys).toEqual([{ id: "bk2", key: Buffer.from(key, "base64") }]);
    expect(() => loadConfig({ SIGIL_DATA_DIR: dataDir, SIGIL_BACKUP_SEALING_KEYS: "bk2:short" })).toThrow(/SIGIL_BACKUP_SEALING_KEYS/);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
