import { setTimeout as sleep } from "node:timers/promises";
import { SealError, type Sealer } from "../../crypto/seal.js";
import type { Queryable } from "../../db/db.js";
import { countSealedByKey, sealedRowsNotUnder, swapSealedValues } from "../../db/repositories/sealed-columns.js";
import { sealedColumnName, type KeySet, type SealedColumn } from "./registry.js";

/** The sealers of a process, one per key set (deps.sealer and deps.backupSealer). */
export type Sealers = Record<KeySet, Sealer>;

/** What resealing one column did. */
export interface ResealOutcome {
  column: string;
  keySet: KeySet;
  /** Values now sealed under the current key by this run. */
  resealed: number;
  /** Values the service changed (or deleted) between this run's read and its write: theirs stand. */
  changed: number;
  /** Values no configured key opens (unknown key, tampered, bound to another row): left as they are. */
  unopenable: number;
  /** The primary keys of the first unopenable rows, for the operator to look at. */
  unopenableRows: unknown[][];
}

/** How many unopenable rows an outcome names (the count covers them all). */
const LISTED_UNOPENABLE = 20;

export interface ResealOptions {
  batchSize: number;
  /** A pause between batches, to go easy on a database that serves traffic meanwhile. */
  pauseMs?: number;
  /** Called after each batch has committed, with the number of rows it went through. */
  onBatch?: (rows: number) => void;
}

/**
 * Reseals, under the current key of its key set, every value of `column` sealed under another key, batch
 * after batch in primary key order. Each batch is one compare-and-swap statement, committed on its own: a
 * value the service rewrote since the batch read it is left alone (the service's write wins), and a run
 * killed half-way leaves every value whole, under either key. Nothing is held between batches, and a rerun
 * only meets what is still under an old key: resuming is running it again. A value no configured key opens
 * is counted and named, never overwritten.
 */
export async function resealColumn(db: Queryable, sealers: Sealers, column: SealedColumn, opts: ResealOptions): Promise<ResealOutcome> {
  const sealer = sealers[column.keySet];
  const outcome: ResealOutcome = { column: sealedColumnName(column), keySet: column.keySet, resealed: 0, changed: 0, unopenable: 0, unopenableRows: [] };
  let after: unknown[] | null = null;
  for (;;) {
    const rows = await sealedRowsNotUnder(db, column, sealer.currentKeyId, after, opts.batchSize);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.key;
    const swaps: { key: unknown[]; from: string; to: string }[] = [];
    for (const r of rows) {
      const aad = column.aad(r.row);
      let plaintext: string;
      try {
        plaintext = sealer.open(r.sealed, aad);
      } catch (err) {
        if (!(err instanceof SealError)) throw err;
        outcome.unopenable++;
        if (outcome.unopenableRows.length < LISTED_UNOPENABLE) outcome.unopenableRows.push(r.key);
        continue;
      }
      swaps.push({ key: r.key, from: r.sealed, to: sealer.seal(plaintext, aad) });
    }
    const written = await swapSealedValues(db, column, swaps);
    outcome.resealed += written;
    outcome.changed += swaps.length - written;
    opts.onBatch?.(rows.length);
    if (rows.length < opts.batchSize) break;
    if (opts.pauseMs) await sleep(opts.pauseMs);
  }
  return outcome;
}

/** How many values of a column each key id seals, and whether that key is the current one, an older one or unknown. */
export interface SealedCount {
  keyId: string;
  count: number;
  /** current: seals new values; old: listed, opens only; unknown: not configured (nothing opens these). */
  key: "current" | "old" | "unknown";
}

export async function sealedCounts(db: Queryable, sealers: Sealers, column: SealedColumn): Promise<SealedCount[]> {
  const sealer = sealers[column.keySet];
  return (await countSealedByKey(db, column)).map(({ keyId, count }) => ({
    keyId,
    count,
    key: keyId === sealer.currentKeyId ? "current" : sealer.keyIds.includes(keyId) ? "old" : "unknown",
  }));
}
