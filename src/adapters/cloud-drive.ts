import { randomBytes } from "node:crypto";
import type { CloudDrive } from "../domain/deps.js";
import { badRequest } from "../errors.js";
import { backupLocationRefused, backupLocationUnavailable, readBounded } from "./backup-errors.js";

/**
 * A user's cloud drive as a backup location: one file per backed-up share in the drive's app-data folder
 * (hidden from the user's file list, visible to this application only), reached with the user's own OAuth
 * access token, given per call and never stored. The common REST API of such drives:
 *
 * - upload: `POST {base}/upload/drive/v3/files?uploadType=multipart`, a multipart/related body of the
 *   metadata `{name, parents: ["appDataFolder"]}` (JSON) and the content;
 * - find by name: `GET {base}/drive/v3/files?spaces=appDataFolder&q=name='...'`;
 * - download: `GET {base}/drive/v3/files/{id}?alt=media`.
 *
 * Every request has a bounded timeout. An unreachable or failing drive is a 503 backup_location_unavailable,
 * a token the drive refuses a 422 backup_location_refused. The domain sees it as the CloudDrive port
 * (src/domain/deps.ts).
 */
export interface CloudDriveOptions {
  /** Timeout of each request (default 10 s). */
  timeoutMs?: number;
  /** Largest file accepted on download (default 64 KiB: a share envelope is well under 10 KiB). */
  maxBytes?: number;
}

// Names are chosen by the service (wallet, epoch, holder); this keeps them out of reach of query injection.
const NAME_SHAPE = /^[A-Za-z0-9._-]{1,200}$/;
// An OAuth access token is a printable ASCII string; anything else could not be a header value anyway.
const TOKEN_SHAPE = /^[\x21-\x7e]{1,4096}$/;
const FILE_ID_SHAPE = /^[A-Za-z0-9_-]{1,256}$/;
// The API's JSON answers (a file's metadata, a listing by one name) are small; a huge one is not the drive.
const JSON_MAX_BYTES = 256 * 1024;

export function createCloudDrive(baseUrl: string, options: CloudDriveOptions = {}): CloudDrive {
  const base = baseUrl.replace(/\/$/, "");
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024;

  /** One request; any failure to get an answer, and any 5xx or 429, is the location being unavailable. */
  const send = async (accessToken: string, url: string, init: RequestInit = {}): Promise<Response> => {
    if (!TOKEN_SHAPE.test(accessToken)) throw badRequest("invalid_access_token", "the cloud drive access token is malformed");
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${accessToken}`, accept: "application/json" },
        // A redirect could carry the bearer token elsewhere; the API never redirects.
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw backupLocationUnavailable("cloud_drive");
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw backupLocationRefused("cloud_drive");
    }
    if (!res.ok && res.status !== 404) {
      await res.body?.cancel();
      throw backupLocationUnavailable("cloud_drive");
    }
    return res;
  };

  const json = async (res: Response): Promise<Record<string, unknown>> => {
    try {
      const bytes = await readBounded(res.body, JSON_MAX_BYTES);
      const value: unknown = bytes && JSON.parse(new TextDecoder().decode(bytes));
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // falls through: a malformed answer
    }
    throw backupLocationUnavailable("cloud_drive");
  };

  const checkName = (name: string) => {
    if (!NAME_SHAPE.test(name)) throw badRequest("invalid_backup_name", "a backup file name is 1-200 letters, digits, '.', '_' or '-'");
  };

  return {
    async upload(accessToken, name, content) {
      checkName(name);
      const boundary = `sigil-${randomBytes(16).toString("hex")}`;
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n`),
        Buffer.from(JSON.stringify({ name, parents: ["appDataFolder"] })),
        Buffer.from(`\r\n--${boundary}\r\ncontent-type: application/octet-stream\r\n\r\n`),
        content,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const res = await send(accessToken, `${base}/upload/drive/v3/files?uploadType=multipart`, {
        method: "POST",
        headers: { "content-type": `multipart/related; boundary=${boundary}` },
        body,
      });
      if (res.status === 404) throw (await res.body?.cancel(), backupLocationUnavailable("cloud_drive"));
      const { id } = await json(res);
      if (typeof id !== "string" || !FILE_ID_SHAPE.test(id)) throw backupLocationUnavailable("cloud_drive");
      return { fileId: id };
    },

    async download(accessToken, name) {
      checkName(name);
      const query = new URLSearchParams({ spaces: "appDataFolder", q: `name='${name}'`, orderBy: "createdTime desc", fields: "files(id,name,createdTime)" });
      const listed = await send(accessToken, `${base}/drive/v3/files?${query}`);
      if (listed.status === 404) throw (await listed.body?.cancel(), backupLocationUnavailable("cloud_drive"));
      const { files } = await json(listed);
      if (!Array.isArray(files)) throw backupLocationUnavailable("cloud_drive");
      // Newest first whatever order the drive answered in: a re-upload under the same name wins.
      const matching = files
        .filter((f): f is { id: string; name: string; createdTime?: string } => typeof f?.id === "string" && FILE_ID_SHAPE.test(f.id) && f.name === name)
        .sort((a, b) => String(b.createdTime ?? "").localeCompare(String(a.createdTime ?? "")));
      const newest = matching[0];
      if (!newest) return null;
      const res = await send(accessToken, `${base}/drive/v3/files/${encodeURIComponent(newest.id)}?alt=media`);
      // Deleted between the listing and the download.
      if (res.status === 404) return (await res.body?.cancel(), null);
      let content: Uint8Array | null;
      try {
        content = await readBounded(res.body, maxBytes);
      } catch {
        throw backupLocationUnavailable("cloud_drive");
      }
      if (!content) throw backupLocationUnavailable("cloud_drive");
      return content;
    },
  };
}
