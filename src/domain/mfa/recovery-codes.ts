import { createHash, randomBytes } from "node:crypto";
import { base32nopad } from "@scure/base";

/**
 * Recovery codes: ten single-use codes that pass the second factor when every device is lost. Each is 80
 * random bits written as 16 base32 characters in four groups (XXXX-XXXX-XXXX-XXXX). Only a SHA-256 of the
 * user id and the code is stored: a slow password hash protects guessable secrets, and these are not
 * guessable (2^80 tries per code even with the hashes in hand), so a plain hash is enough and lets a
 * code be found by an index lookup and spent by one conditional UPDATE. The user id in the hash ties a
 * code to its owner.
 */
export const RECOVERY_CODE_COUNT = 10;
const CODE_BYTES = 10;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => base32nopad.encode(randomBytes(CODE_BYTES)).match(/.{4}/g)!.join("-"));
}

/** Codes are typed by hand: case, spaces and dashes do not matter. */
const normalise = (code: string) => code.replace(/[\s-]/g, "").toUpperCase();

export const recoveryCodeHash = (userId: string, code: string): Buffer => createHash("sha256").update(`${userId}:${normalise(code)}`).digest();
