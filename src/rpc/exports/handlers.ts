import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { HttpBodySchema } from "../../gen/google/api/httpbody_pb.js";
import { ExportsService, StreamExportRequestSchema, type StreamExportRequest } from "../../gen/sigil/exports/v0/exports_service_pb.js";
import { ExportFilterSchema, ExportSchema, type Export } from "../../gen/sigil/exports/v0/exports_pb.js";
import { badRequest, DomainError, toConnectError, unprocessable } from "../../errors.js";
import type { Deps } from "../../domain/deps.js";
import * as exportsDomain from "../../domain/exports/service.js";
import { pageOf } from "../paging.js";
import { ts } from "../mappers.js";
import { validateMessage } from "../validation.js";
import { environmentOf } from "../tenant-context.js";

/** Largest file DownloadExport returns in one message (gRPC clients accept 4 MiB by default). */
export const UNARY_DOWNLOAD_MAX_BYTES = 4 * 1024 * 1024 - 64 * 1024;

export function toExport(e: exportsDomain.ExportRecord): Export {
  return create(ExportSchema, {
    id: e.id,
    environmentId: e.environmentId,
    model: e.model,
    format: e.format,
    filter: create(ExportFilterSchema, {
      filterColumn: e.filter.filterColumn ?? "",
      filterValue: e.filter.filterValue ?? "",
      createdAfter: e.filter.createdAfter ? timestampFromDate(new Date(e.filter.createdAfter)) : undefined,
      createdBefore: e.filter.createdBefore ? timestampFromDate(new Date(e.filter.createdBefore)) : undefined,
    }),
    // The published client knows pending, completed and failed: a running export is still pending there;
    // `phase` keeps Sigil's finer state.
    status: e.status === "running" ? "pending" : e.status,
    phase: e.status,
    downloadUrl: e.status === "completed" ? `/api/v0/environments/${e.environmentId}/exports/${e.id}/download` : "",
    rowCount: e.rowCount,
    byteSize: BigInt(e.byteSize),
    error: e.error ?? "",
    createdAt: ts(e.createdAt),
    startedAt: ts(e.startedAt),
    completedAt: ts(e.completedAt),
    updatedAt: ts(e.updatedAt),
    filename: exportsDomain.exportFilename(e),
  });
}

export function registerExports(router: ConnectRouter, deps: Deps) {
  router.service(ExportsService, {
    async createExport(req, ctx) {
      const access = environmentOf(ctx);
      const f = req.filter;
      const created = await exportsDomain.createExport(deps, access, {
        model: req.model as exportsDomain.ExportModel,
        format: req.format as exportsDomain.ExportFormat,
        filter: {
          ...(f?.filterColumn ? { filterColumn: f.filterColumn } : {}),
          ...(f?.filterValue ? { filterValue: f.filterValue } : {}),
          ...(f?.createdAfter ? { createdAfter: timestampDate(f.createdAfter).toISOString() } : {}),
          ...(f?.createdBefore ? { createdBefore: timestampDate(f.createdBefore).toISOString() } : {}),
        },
      });
      return { export: toExport(created) };
    },
    async listExports(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await exportsDomain.listExports(deps, access, pageOf(req), req.model || null);
      return { exports: items.map(toExport), count };
    },
    async getExport(req, ctx) {
      const access = environmentOf(ctx);
      return { export: toExport(await exportsDomain.getExport(deps, access, req.exportId)) };
    },
    async downloadExport(req, ctx) {
      const access = environmentOf(ctx);
      const e = await exportsDomain.downloadableExport(deps, access, req.exportId);
      if (e.byteSize > UNARY_DOWNLOAD_MAX_BYTES)
        throw unprocessable("export_too_large", "the file is too large for one message: use StreamExport or the REST download", {
          byteSize: e.byteSize,
          maxBytes: UNARY_DOWNLOAD_MAX_BYTES,
        });
      const parts: Buffer[] = [];
      for await (const chunk of exportsDomain.exportChunks(deps, access, e.id)) parts.push(chunk);
      return {
        file: create(HttpBodySchema, { contentType: exportsDomain.CONTENT_TYPES[e.format], data: Buffer.concat(parts) }),
        filename: exportsDomain.exportFilename(e),
      };
    },
    // The error interceptor only sees errors raised before a response stream starts: errors raised while
    // the generator runs are mapped here the same way (domain errors keep their code, the rest is internal).
    async *streamExport(req, ctx) {
      try {
        yield* streamChunks(deps, req, ctx);
      } catch (err) {
        if (err instanceof DomainError) throw toConnectError(err);
        if (err instanceof ConnectError) throw err;
        deps.log.error("export stream failed", { error: err instanceof Error ? err.message : String(err) });
        throw new ConnectError("internal error", Code.Internal);
      }
    },
  });
}

async function* streamChunks(deps: Deps, req: StreamExportRequest, ctx: HandlerContext) {
  // The validation interceptor checks unary requests only; a server stream's request is checked here.
  const violations = validateMessage(StreamExportRequestSchema, req as unknown as Record<string, unknown>);
  if (violations.length)
    throw badRequest("validation_error", `invalid request: ${violations.map((v) => `${v.field} ${v.message}`).join("; ")}`, { errors: violations });
  const access = environmentOf(ctx);
  const e = await exportsDomain.downloadableExport(deps, access, req.exportId);
  let first = true;
  for await (const chunk of exportsDomain.exportChunks(deps, access, e.id)) {
    yield first
      ? { data: chunk, contentType: exportsDomain.CONTENT_TYPES[e.format], filename: exportsDomain.exportFilename(e), byteSize: BigInt(e.byteSize) }
      : { data: chunk };
    first = false;
  }
}
