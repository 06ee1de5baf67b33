import { DomainError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../errors.js";

/** The backup locations an adapter reaches (the service's own vault needs no adapter). */
export type RemoteBackupLocation = "cloud_drive" | "external";

/**
 * The location did not answer usably (refused connection, timeout, 5xx, 429, a malformed answer): nothing
 * is known to be stored, and the same request may be retried: 503 with Retry-After; the detail stays in the
 * server log.
 */
export const backupLocationUnavailable = (location: RemoteBackupLocation) =>
  new DomainError("unavailable", "backup_location_unavailable", "the backup location cannot be reached, retry later", {
    location,
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
  });

/** The location answered, and refused us (401/403): retrying with the same credentials will not help. 422. */
export const backupLocationRefused = (location: RemoteBackupLocation) =>
  new DomainError("unprocessable", "backup_location_refused", "the backup location refused the credentials", { location });

/** Reads a response body of at most `maxBytes`; null when it is longer (the rest is not read). */
export async function readBounded(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    // Leaving the loop early cancels the stream (the iterator's return()).
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
