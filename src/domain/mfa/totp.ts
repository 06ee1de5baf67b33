import { Secret, TOTP } from "otpauth";

/**
 * RFC 6238 time-based codes as every authenticator app makes them: HMAC-SHA1, six digits, 30-second steps
 * (the only parameters all common apps honour). A code of the step before or after the current one is
 * accepted too (clock drift and typing time); the device then remembers that step, so a code is good once
 * and nothing older is good after it (src/db/repositories/mfa.ts acceptTotpCounter).
 */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
const ALGORITHM = "SHA1";
/** Steps either side of now whose code is accepted. */
const WINDOW = 1;
/** 160 bits, the HMAC-SHA1 block the RFC recommends. */
const SECRET_BYTES = 20;

/** A new random secret, base32 (what authenticator apps take when typed in). */
export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32;

const totpOf = (secret: string, issuer = "", label = "") =>
  new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS });

/** The otpauth:// URI an authenticator app scans (as a QR code) to add the account. */
export const totpUri = (secret: string, issuer: string, label: string): string => totpOf(secret, issuer, label).toString();

/** The time step whose code `code` is (within the window around `now`), or null when it is none of them. */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}
