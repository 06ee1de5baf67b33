import { pgp, type Queryable } from "../db.js";

/**
 * Where a sealed value lives: a text column of a table, its rows named by their primary key. The identifiers
 * come from the code's own registry of sealed columns (src/domain/sealing/registry.ts), never from input,
 * and are escaped as identifiers all the same.
 */
export interface SealedColumnLocation {
  table: string;
  column: string;
  /** The primary key's columns, in order, with their SQL types (to cast the arrays of a batch update). */
  key: readonly { name: string; type: "uuid" | "integer" }[];
  /** Other columns of the row the value's associated data is made of. */
  reads: readonly string[];
}

export interface SealedRow {
  /** The primary key's values, in `key` order. */
  key: unknown[];
  sealed: string;
  /** The `reads` columns, by name. */
  row: Record<string, unknown>;
}

const ident = (name: string) => pgp.as.name(name);

/**
 * The next rows (in primary key order, after `after`) whose value is not sealed under `keyId`: the second
 * field of the compact form `v1.<keyId>.<iv>.<body>`. split_part, not LIKE: a key id may contain `_`, which
 * LIKE reads as a wildcard. A value that is not in the compact form at all is selected too (it is not under
 * the current key), so that the caller reports it instead of passing it by.
 */
export async function sealedRowsNotUnder(
  q: Queryable,
  loc: SealedColumnLocation,
  keyId: string,
  after: unknown[] | null,
  limit: number,
): Promise<SealedRow[]> {
  const col = ident(loc.column);
  const keys = loc.key.map((k) => ident(k.name));
  const cursor = after ? `AND (${keys.join(", ")}) > (${loc.key.map((k, i) => `$${i + 3}::${k.type}`).join(", ")})` : "";
  const reads = loc.reads.map((c) => `, ${ident(c)}`).join("");
  const rows = await q.any(
    `SELECT ${keys.join(", ")}, ${col} AS sealed_value${reads} FROM ${ident(loc.table)}
     WHERE ${col} IS NOT NULL AND split_part(${col}, '.', 2) <> $1 ${cursor}
     ORDER BY ${keys.join(", ")} LIMIT $2`,
    [keyId, limit, ...(after ?? [])],
  );
  return rows.map((r: Record<string, unknown>) => ({
    key: loc.key.map((k) => r[k.name]),
    sealed: r.sealed_value as string,
    row: Object.fromEntries(loc.reads.map((c) => [c, r[c]])),
  }));
}

/**
 * Writes each row's new value only where the column still holds the value it was read with (compare and
 * swap, one statement: a batch commits whole or not at all). A row changed meanwhile (the service sealed a
 * new secret there, or deleted the row) keeps what it has now. Returns how many rows were written.
 */
export async function swapSealedValues(q: Queryable, loc: SealedColumnLocation, swaps: { key: unknown[]; from: string; to: string }[]): Promise<number> {
  if (swaps.length === 0) return 0;
  const col = ident(loc.column);
  const arrays = [...loc.key.map((k, i) => `$${i + 1}::${k.type}[]`), `$${loc.key.length + 1}::text[]`, `$${loc.key.length + 2}::text[]`];
  const names = [...loc.key.map((_, i) => `k${i}`), "from_value", "to_value"];
  const match = loc.key.map((k, i) => `t.${ident(k.name)} = u.k${i}`).join(" AND ");
  const r = await q.result(
    `UPDATE ${ident(loc.table)} AS t SET ${col} = u.to_value
     FROM unnest(${arrays.join(", ")}) AS u(${names.join(", ")})
     WHERE ${match} AND t.${col} = u.from_value`,
    [...loc.key.map((_, i) => swaps.map((s) => s.key[i])), swaps.map((s) => s.from), swaps.map((s) => s.to)],
  );
  return r.rowCount;
}

/** How many values of the column each key id seals (values not in the compact form count under ""). */
export async function countSealedByKey(q: Queryable, loc: SealedColumnLocation): Promise<{ keyId: string; count: number }[]> {
  const col = ident(loc.column);
  const rows = await q.any(
    `SELECT CASE WHEN ${col} ~ '^v1\\.[A-Za-z0-9_-]+\\.' THEN split_part(${col}, '.', 2) ELSE '' END AS key_id, count(*)::int AS count
     FROM ${ident(loc.table)} WHERE ${col} IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  return rows.map((r: Record<string, unknown>) => ({ keyId: r.key_id as string, count: r.count as number }));
}
