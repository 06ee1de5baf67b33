import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type http from "node:http";
import type http2 from "node:http2";
import { createContextValues } from "@connectrpc/connect";
import { badRequest, DomainError, kindToHttpStatus, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../errors.js";
import { asUnavailable } from "../infra/dependency-errors.js";
import { authenticateApiToken } from "../domain/auth/api-token-auth.js";
import { effectivePermissions, hasPermission } from "../domain/auth/permissions.js";
import type { Deps } from "../domain/deps.js";
import * as exportsDomain from "../domain/exports/service.js";
import { environmentAccess } from "../domain/tenancy/access.js";
import { DownloadExportRequestSchema, ExportsService } from "../gen/sigil/exports/v0/exports_service_pb.js";
import { principalKey, requestIdKey } from "../rpc/context.js";
import { methodRules } from "../rpc/method-options.js";
import { validateMessage } from "../rpc/validation.js";

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

/** The REST path of DownloadExport (ExportsService), served here so the file streams instead of buffering. */
const DOWNLOAD_PATH = /^\/api\/v0\/environments\/([^/]*)\/exports\/([^/]*)\/download\/?$/;
const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const method = ExportsService.method.downloadExport;

/**
 * GET /api/v0/environments/{environmentId}/exports/{exportId}/download as a raw streaming handler: the same
 * authentication, permission (exports.read), validation, tenancy rules and error bodies as the RPC, then the
 * stored chunks written one at a time with backpressure, so memory stays flat whatever the file size.
 *
 * Returns false for any other request (the caller then serves it as usual), true once it has taken it.
 */
export function createExportDownloadRoute(deps: Deps): (req: Req, res: Res) => boolean {
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const match = DOWNLOAD_PATH.exec(q < 0 ? url : url.slice(0, q));
    if (!match || req.method !== "GET") return false;
    const given = header(req, "x-request-id");
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    serve(deps, req, res, decode(match[1]!), decode(match[2]!), requestId).catch((err: unknown) => fail(deps, res, err, requestId));
    return true;
  };
}

async function serve(deps: Deps, req: Req, res: Res, environmentId: string, exportId: string, requestId: string) {
  const principal = await authenticateApiToken(deps, header(req, "authorization") ?? null);
  const needed = methodRules(method).permission;
  const granted =
    principal.kind === "api_token" && principal.role ? effectivePermissions(principal.permissions, principal.role) : principal.permissions;
  if (!hasPermission(granted, needed)) throw new DomainError("forbidden", "forbidden", `this token lacks the permission ${needed}`);
  const violations = validateMessage(DownloadExportRequestSchema, { environmentId, exportId });
  if (violations.length)
    throw badRequest("validation_error", `invalid request: ${violations.map((v) => `${v.field} ${v.message}`).join("; ")}`, { errors: violations });

  const values = createContextValues();
  values.set(principalKey, principal);
  values.set(requestIdKey, requestId);
  const access = await environmentAccess(deps, { method, values }, environmentId);
  const e = await exportsDomain.downloadableExport(deps, access, exportId);

  res.writeHead(200, {
    "content-type": exportsDomain.CONTENT_TYPES[e.format],
    "content-disposition": `attachment; filename="${exportsDomain.exportFilename(e)}"`,
    "content-length": String(e.byteSize),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "x-request-id": requestId,
  });
  const out = res as unknown as NodeJS.WritableStream & { destroyed: boolean };
  for await (const chunk of exportsDomain.exportChunks(deps, access, e.id)) {
    if (out.destroyed) return; // the client went away: stop reading chunks
    if (!out.write(chunk)) await Promise.race([once(out, "drain"), once(out, "close")]);
  }
  out.end();
}

/** Errors before the first byte get the API's JSON body; after it, only closing the stream is left. */
function fail(deps: Deps, res: Res, err: unknown, requestId: string) {
  const r = res as http.ServerResponse;
  if (r.headersSent) {
    deps.log.error("export download interrupted", { requestId, error: err instanceof Error ? err.message : String(err) });
    r.destroy();
    return;
  }
  let status = 500;
  let body: Record<string, unknown> = { error: "internal error", code: "internal" };
  const headers: Record<string, string | number> = { "content-type": "application/json; charset=utf-8", "x-request-id": requestId };
  // A dependency that is down answers 503 + Retry-After here as on every other route.
  const known = asUnavailable(err) ?? err;
  if (known instanceof DomainError && known.kind !== "internal") {
    status = kindToHttpStatus[known.kind];
    body = { error: known.message, code: known.code, ...(known.payload ? { payload: known.payload } : {}) };
    if (known.kind === "unavailable") headers["retry-after"] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  } else {
    deps.log.error("export download failed", { requestId, error: err instanceof Error ? err.message : String(err) });
  }
  const text = JSON.stringify(body);
  r.writeHead(status, { ...headers, "content-length": Buffer.byteLength(text) });
  r.end(text);
}

function header(req: Req, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
