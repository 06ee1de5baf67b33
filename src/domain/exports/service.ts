import { randomUUID } from "node:crypto";
import { badRequest, notFound, unprocessable } from "../../errors.js";
import * as exportsRepo from "../../db/repositories/exports.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

export type { ExportRecord, ExportFormat, ExportModel } from "../../db/repositories/exports.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Starting the workflow is retried this many times before the export is marked failed. */
const START_ATTEMPTS = 3;

export const CONTENT_TYPES: Record<exportsRepo.ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
};

export const exportFilename = (e: Pick<exportsRepo.ExportRecord, "id" | "model" | "format">) => `${e.model}-${e.id}.${e.format}`;

/** What the audit trail keeps of an export (it holds no secrets). */
const auditView = (e: exportsRepo.ExportRecord) => ({ id: e.id, model: e.model, format: e.format, filter: e.filter, status: e.status });

export interface CreateExportInput {
  model: exportsRepo.ExportModel;
  format: exportsRepo.ExportFormat;
  filter: exportsRepo.ExportFilter;
}

function checkFilter(f: exportsRepo.ExportFilter) {
  if (f.filterColumn === "id" && f.filterValue && !UUID.test(f.filterValue.trim()))
    throw badRequest("invalid_filter_value", "filterValue must be a user id (lowercase UUID) when filterColumn is id", { field: "filter.filterValue" });
  if (f.createdAfter && f.createdBefore && new Date(f.createdAfter) >= new Date(f.createdBefore))
    throw badRequest("invalid_filter_range", "filter.createdAfter must be before filter.createdBefore", { field: "filter.createdAfter" });
}

/**
 * Stores the export (pending) with its audit row in one transaction, then starts its workflow. A start that
 * keeps failing must not leave the export pending forever: it is marked failed, and the caller sees that.
 */
export async function createExport(deps: Deps, access: EnvironmentAccess, input: CreateExportInput): Promise<exportsRepo.ExportRecord> {
  checkFilter(input.filter);
  const created = await audited(deps, access, async (t, record) => {
    const e = await exportsRepo.insertExport(t, access.environmentId, {
      id: randomUUID(),
      model: input.model,
      format: input.format,
      filter: input.filter,
      createdByTokenId: access.actor.tokenId,
      createdByMemberId: access.actor.memberId,
    });
    await record({ action: "export.created", resourceType: "export", resourceId: e.id, after: auditView(e) });
    return e;
  });
  const flowInput = { environmentId: access.environmentId, exportId: created.id };
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.flows.startExport(flowInput);
      return created;
    } catch (err) {
      deps.log.warn("export workflow start failed", { exportId: created.id, attempt, error: err instanceof Error ? err.message : String(err) });
      if (attempt >= START_ATTEMPTS) break;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
  await exportsRepo.failExport(deps.db, access.environmentId, created.id, "the export could not be started; create a new export");
  return (await exportsRepo.findExport(deps.db, access.environmentId, created.id)) ?? created;
}

export async function getExport(deps: Pick<Deps, "db">, access: EnvironmentAccess, exportId: string): Promise<exportsRepo.ExportRecord> {
  const e = await exportsRepo.findExport(deps.db, access.environmentId, exportId);
  if (!e) throw notFound("export");
  return e;
}

/** Newest first; `model` keeps only the exports of that model. */
export function listExports(deps: Pick<Deps, "db">, access: EnvironmentAccess, page: { offset: number; limit: number }, model: string | null = null) {
  return exportsRepo.listExports(deps.db, access.environmentId, page, model);
}

/** The export if its file can be downloaded: 422 export_not_ready before completion. */
export async function downloadableExport(deps: Pick<Deps, "db">, access: Pick<EnvironmentAccess, "environmentId">, exportId: string) {
  const e = await exportsRepo.findExport(deps.db, access.environmentId, exportId);
  if (!e) throw notFound("export");
  if (e.status !== "completed")
    throw unprocessable("export_not_ready", `the export is ${e.status}; download it once it is completed`, { status: e.status });
  return e;
}

/** The file's chunks in order; only one chunk is held in memory at a time. */
export function exportChunks(deps: Pick<Deps, "db">, access: Pick<EnvironmentAccess, "environmentId">, exportId: string) {
  return exportsRepo.readExportChunks(deps.db, access.environmentId, exportId);
}
