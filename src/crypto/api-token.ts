import { createHash, randomBytes } from "node:crypto";

/**
 * API tokens: shown to the caller once, stored only as a SHA-256 hash.
 *
 * A plain (unsalted, fast) hash is enough here because the token carries 256 bits of randomness: there is
 * nothing to brute-force, and a deterministic hash lets the database look a token up by its hash directly.
 */

/** The prefix makes leaked tokens recognisable to secret scanners and to people. */
export const API_TOKEN_PREFIX = "sgl_";

const API_TOKEN_SHAPE = /^sgl_[0-9a-f]{64}$/;

/** Characters of the raw token kept (in clear) so a user can tell their tokens apart in a listing. */
const CHECKSUM_LENGTH = 6;

export interface GeneratedApiToken {
  /** The token itself: return it to the caller once and never store it. */
  raw: string;
  /** SHA-256 of `raw`: what gets stored and looked up. */
  hash: Buffer;
  /** Last characters of `raw`: safe to store and display as a hint. */
  checksum: string;
}

export function generateApiToken(): GeneratedApiToken {
  const raw = API_TOKEN_PREFIX + randomBytes(32).toString("hex");
  return { raw, hash: hashApiToken(raw), checksum: raw.slice(-CHECKSUM_LENGTH) };
}

export function hashApiToken(raw: string): Buffer {
  return createHash("sha256").update(raw, "utf8").digest();
}

/** Cheap shape check, so that obviously foreign credentials are rejected before touching the database. */
export function looksLikeApiToken(raw: string): boolean {
  return API_TOKEN_SHAPE.test(raw);
}
