import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Context } from "@temporalio/activity";
import { stringify } from "csv-stringify";
import QueryStream from "pg-query-stream";
import type { Database } from "../db/db.js";
import { exportUsersQuery, type ExportUserRow } from "../db/repositories/export-users.js";
import {
  appendExportChunk,
  claimExportRun,
  completeExportRun,
  failExport,
  findExport,
  type ExportFormat,
} from "../db/repositories/exports.js";

export interface ExportActivityDeps {
  db: Database;
}

/** Stored chunk size: a chunk is flushed once this many bytes are buffered (so chunks are ~1 MiB). */
export const EXPORT_CHUNK_BYTES = 1024 * 1024;
/** Rows fetched per cursor round trip. */
const CURSOR_BATCH = 500;

/** The columns of a users export, in file order (CSV header and JSON keys). */
export const EXPORT_USER_COLUMNS = [
  "id",
  "email",
  "phoneNumber",
  "alias",
  "firstName",
  "lastName",
  "username",
  "createdAt",
  "updatedAt",
  "walletAddresses",
] as const;

export interface ExportRunResult {
  status: "completed" | "skipped";
  rowCount: number;
  byteSize: number;
}

class SupersededError extends Error {
  constructor() {
    super("a newer attempt owns this export");
    this.name = "SupersededError";
  }
}

function jsonUser(r: ExportUserRow) {
  return {
    id: r.id,
    email: r.email,
    phoneNumber: r.phone_number,
    alias: r.alias,
    firstName: r.first_name,
    lastName: r.last_name,
    username: r.username,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    walletAddresses: r.wallets.map((w) => ({ chain: w.chain, address: w.address })),
  };
}

/** CSV flattens the wallet list to `chain:address` items separated by spaces. */
function csvUser(r: ExportUserRow) {
  const u = jsonUser(r);
  return { ...u, walletAddresses: u.walletAddresses.map((w) => `${w.chain}:${w.address}`).join(" ") };
}

/** Objects in, one JSON array document out, one element at a time. */
function jsonArrayWriter(): Transform {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    transform(obj, _enc, cb) {
      cb(null, (first ? "[\n" : ",\n") + JSON.stringify(obj));
      first = false;
    },
    flush(cb) {
      cb(null, first ? "[]\n" : "\n]\n");
    },
  });
}

/** Bytes in, ~1 MiB chunks stored in order; every stored chunk is a heartbeat. */
function chunkSink(store: (seq: number, data: Buffer) => Promise<void>) {
  let parts: Buffer[] = [];
  let buffered = 0;
  let seq = 0;
  let total = 0;
  const flush = async () => {
    if (buffered === 0) return;
    const data = Buffer.concat(parts, buffered);
    parts = [];
    buffered = 0;
    await store(seq++, data);
    total += data.length;
  };
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      parts.push(b);
      buffered += b.length;
      if (buffered < EXPORT_CHUNK_BYTES) return cb();
      flush().then(() => cb(), cb);
    },
    final(cb) {
      flush().then(() => cb(), cb);
    },
  });
  return { sink, bytes: () => total };
}

/**
 * Export activities. generateExport is idempotent: each attempt claims the export (dropping the chunks of
 * earlier attempts) and writes only while it still owns it, so a retry after a crash or a heartbeat timeout
 * starts clean and a stale attempt that is still running stops at its next chunk.
 */
export function createExportActivities(deps: ExportActivityDeps) {
  return {
    async generateExport(input: { environmentId: string; exportId: string }): Promise<ExportRunResult> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const { environmentId, exportId } = input;
      const exp = await claimExportRun(deps.db, environmentId, exportId, attempt);
      if (!exp) {
        // Already finished (or deleted with its environment): nothing left to do.
        const current = await findExport(deps.db, environmentId, exportId);
        return { status: "skipped", rowCount: current?.rowCount ?? 0, byteSize: current?.byteSize ?? 0 };
      }
      ctx.heartbeat({ phase: "claimed" });
      const query = exportUsersQuery(environmentId, exp.filter);
      let rows = 0;
      const { sink, bytes } = chunkSink(async (seq, data) => {
        if (!(await appendExportChunk(deps.db, environmentId, exportId, attempt, seq, data))) throw new SupersededError();
        ctx.heartbeat({ seq, rows });
      });
      const format: ExportFormat = exp.format;
      const shape = new Transform({
        objectMode: true,
        transform(row: ExportUserRow, _enc, cb) {
          rows++;
          if (rows % 1000 === 0) ctx.heartbeat({ rows });
          cb(null, format === "csv" ? csvUser(row) : jsonUser(row));
        },
      });
      const formatter =
        format === "csv" ? stringify({ header: true, columns: EXPORT_USER_COLUMNS.map((key) => ({ key })) }) : jsonArrayWriter();

      // A dedicated connection holds the cursor; chunks are written through the pool meanwhile.
      const conn = await deps.db.connect();
      let broken = false;
      try {
        // pg-promise's client typings omit pg's Submittable overload: query(stream) returns the stream.
        const client = conn.client as unknown as { query<T>(submittable: T): T };
        const cursor = client.query(new QueryStream(query.text, query.values, { batchSize: CURSOR_BATCH }));
        await pipeline(cursor, shape, formatter, sink, { signal: ctx.cancellationSignal });
      } catch (err) {
        broken = true;
        if (err instanceof SupersededError) return { status: "skipped", rowCount: rows, byteSize: bytes() };
        throw err;
      } finally {
        // A cursor abandoned mid-way leaves the connection in an unknown state: close it rather than reuse it.
        conn.done(broken);
      }
      const done = await completeExportRun(deps.db, environmentId, exportId, attempt, { rowCount: rows, byteSize: bytes() });
      return { status: done ? "completed" : "skipped", rowCount: rows, byteSize: bytes() };
    },

    /** Records a failure the workflow gave up on (a finished export is left alone). */
    async markExportFailed(input: { environmentId: string; exportId: string; error: string }): Promise<void> {
      await failExport(deps.db, input.environmentId, input.exportId, input.error);
    },
  };
}
