import type { Queryable } from "../db.js";

export type ExportStatus = "pending" | "running" | "completed" | "failed";
export type ExportFormat = "csv" | "json";
export type ExportModel = "users";

/** Which users an export covers (camelCase, stored as is in exports.filter). */
export interface ExportFilter {
  filterColumn?: string;
  filterValue?: string;
  createdAfter?: string;
  createdBefore?: string;
}

export interface ExportRecord {
  id: string;
  environmentId: string;
  model: ExportModel;
  format: ExportFormat;
  filter: ExportFilter;
  status: ExportStatus;
  rowCount: number;
  byteSize: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  updatedAt: Date;
}

export interface NewExport {
  id: string;
  model: ExportModel;
  format: ExportFormat;
  filter: ExportFilter;
  createdByTokenId: string | null;
  createdByMemberId: string | null;
}

const COLUMNS = `id, environment_id, model, format, filter, status, row_count, byte_size, error, created_at, started_at, completed_at, updated_at`;

export async function insertExport(q: Queryable, environmentId: string, e: NewExport): Promise<ExportRecord> {
  const row = await q.one(
    `INSERT INTO exports (id, environment_id, model, format, filter, created_by_token_id, created_by_member_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [e.id, environmentId, e.model, e.format, e.filter, e.createdByTokenId, e.createdByMemberId],
  );
  return toExport(row);
}

/**
 * Exports of every environment still pending staleSeconds after they were stored: their workflow never
 * started (the process died between the store and the start), oldest first.
 */
export async function listStalePendingExports(q: Queryable, staleSeconds: number, limit: number): Promise<{ id: string; environmentId: string }[]> {
  return q.map(
    `SELECT id, environment_id FROM exports WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT $2`,
    [staleSeconds, limit],
    (r) => ({ id: r.id, environmentId: r.environment_id }),
  );
}

/** How many exports are pending staleSeconds after they were stored (as listStalePendingExports). */
export async function countStalePendingExports(q: Queryable, staleSeconds: number): Promise<number> {
  return q.one(`SELECT count(*)::int AS n FROM exports WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)`, [staleSeconds], (r) => r.n as number);
}

export async function findExport(q: Queryable, environmentId: string, exportId: string): Promise<ExportRecord | null> {
  const row = await q.oneOrNone(`SELECT ${COLUMNS} FROM exports WHERE environment_id = $1 AND id = $2`, [environmentId, exportId]);
  return row ? toExport(row) : null;
}

/** Newest first (exports_environment_idx). */
export async function listExports(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number },
  model: string | null = null,
): Promise<{ items: ExportRecord[]; count: number }> {
  // $4 null: every model.
  const where = `environment_id = $1 AND ($4::text IS NULL OR model = $4)`;
  const [rows, total] = await Promise.all([
    q.any(`SELECT ${COLUMNS} FROM exports WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [
      environmentId,
      page.limit,
      page.offset,
      model,
    ]),
    q.one(`SELECT count(*) AS n FROM exports WHERE ${where}`, [environmentId, null, null, model]),
  ]);
  return { items: rows.map(toExport), count: total.n };
}

/**
 * Claims the export for one activity attempt: drops the chunks of earlier attempts and marks it running.
 * Returns null when the export is gone or already finished (nothing to do on a late retry).
 */
export async function claimExportRun(q: Queryable, environmentId: string, exportId: string, attempt: number): Promise<ExportRecord | null> {
  return q.tx(async (t) => {
    const row = await t.oneOrNone(
      `UPDATE exports SET status = 'running', run_attempt = $3, started_at = coalesce(started_at, now()), row_count = 0, byte_size = 0,
              error = NULL, updated_at = now()
       WHERE environment_id = $1 AND id = $2 AND status IN ('pending', 'running')
       RETURNING ${COLUMNS}`,
      [environmentId, exportId, attempt],
    );
    if (!row) return null;
    await t.none(`DELETE FROM export_chunks WHERE export_id = $1`, [exportId]);
    return toExport(row);
  });
}

/** Appends one chunk if `attempt` still owns the export; false when a newer attempt took over. */
export async function appendExportChunk(
  q: Queryable,
  environmentId: string,
  exportId: string,
  attempt: number,
  seq: number,
  data: Buffer,
): Promise<boolean> {
  const res = await q.result(
    `INSERT INTO export_chunks (export_id, environment_id, seq, data)
     SELECT id, environment_id, $4, $5 FROM exports
     WHERE environment_id = $1 AND id = $2 AND run_attempt = $3 AND status = 'running'`,
    [environmentId, exportId, attempt, seq, data],
  );
  return res.rowCount === 1;
}

export async function completeExportRun(
  q: Queryable,
  environmentId: string,
  exportId: string,
  attempt: number,
  totals: { rowCount: number; byteSize: number },
): Promise<boolean> {
  const res = await q.result(
    `UPDATE exports SET status = 'completed', row_count = $4, byte_size = $5, completed_at = now(), updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND run_attempt = $3 AND status = 'running'`,
    [environmentId, exportId, attempt, totals.rowCount, totals.byteSize],
  );
  return res.rowCount === 1;
}

/** Marks an unfinished export failed (a completed one stays completed). */
export async function failExport(q: Queryable, environmentId: string, exportId: string, error: string): Promise<boolean> {
  const res = await q.result(
    `UPDATE exports SET status = 'failed', error = $3, completed_at = now(), updated_at = now()
     WHERE environment_id = $1 AND id = $2 AND status IN ('pending', 'running')`,
    [environmentId, exportId, error],
  );
  if (res.rowCount === 1) await q.none(`DELETE FROM export_chunks WHERE export_id = $1 AND environment_id = $2`, [exportId, environmentId]);
  return res.rowCount === 1;
}

/** Chunks in order, one query per chunk so that only one chunk is in memory at a time. */
export async function* readExportChunks(q: Queryable, environmentId: string, exportId: string): AsyncGenerator<Buffer> {
  let seq = -1;
  for (;;) {
    const row = await q.oneOrNone<{ seq: number; data: Buffer }>(
      `SELECT seq, data FROM export_chunks WHERE environment_id = $1 AND export_id = $2 AND seq > $3 ORDER BY seq LIMIT 1`,
      [environmentId, exportId, seq],
    );
    if (!row) return;
    seq = row.seq;
    yield row.data;
  }
}

function toExport(r: Record<string, any>): ExportRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    model: r.model,
    format: r.format,
    filter: r.filter ?? {},
    status: r.status,
    rowCount: r.row_count,
    byteSize: Number(r.byte_size),
    error: r.error,
    createdAt: r.created_at,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    updatedAt: r.updated_at,
  };
}
