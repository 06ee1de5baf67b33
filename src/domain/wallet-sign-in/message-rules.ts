import { badRequest, unprocessable } from "../../errors.js";
import { originAllowedBy } from "../origins/origin.js";

/** The fields of a sign-in message (EIP-4361, or the Solana sign-in message that copies its layout). */
export interface SignInMessage {
  /** The RFC 3986 authority asking for the signature (host[:port]), and its scheme when the message names one. */
  domain: string;
  scheme?: string;
  address: string;
  uri?: string;
  chainId?: string;
  nonce: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
  /** The Resources list (EIP-4361), e.g. the account a decentralized-social sign-in names. */
  resources?: string[];
}

/** Wallet clocks drift; a message issued this far in the future is still accepted. */
const CLOCK_SKEW_MS = 60_000;

const invalidDate = (d: Date | undefined) => d !== undefined && Number.isNaN(d.getTime());

/**
 * The checks every chain's message gets: its times (issued in the past, not expired, already valid) and,
 * when the environment has registered origins, its domain and uri among them: a message a phishing site
 * had the user sign names that site, and is refused here.
 */
export function checkMessageRules(m: SignInMessage, origins: ReadonlySet<string>, now = new Date()): void {
  if (invalidDate(m.issuedAt) || invalidDate(m.expirationTime) || invalidDate(m.notBefore))
    throw badRequest("invalid_message", "the sign-in message's times must be RFC 3339 date-times");
  if (m.issuedAt && m.issuedAt.getTime() > now.getTime() + CLOCK_SKEW_MS)
    throw unprocessable("message_issued_in_future", "the sign-in message's Issued At is in the future");
  if (m.expirationTime && m.expirationTime.getTime() <= now.getTime())
    throw unprocessable("message_expired", "the sign-in message's Expiration Time has passed: sign a new message");
  // No slack here: viem's validateSiweMessage holds Not Before to the second as well.
  if (m.notBefore && m.notBefore.getTime() > now.getTime())
    throw unprocessable("message_not_yet_valid", "the sign-in message's Not Before has not come yet");
  if (origins.size === 0) return;
  const schemes = m.scheme ? [m.scheme] : ["https", "http"];
  if (!schemes.some((s) => originAllowedBy(origins, `${s}://${m.domain}`)))
    throw unprocessable("domain_not_allowed", `the sign-in message's domain ${bounded(m.domain)} is not an origin of this environment`);
  if (!m.uri || !uriAllowed(origins, m.uri))
    throw unprocessable("uri_not_allowed", `the sign-in message's URI ${bounded(m.uri ?? "")} is not under an origin of this environment`);
}

function uriAllowed(origins: ReadonlySet<string>, uri: string): boolean {
  try {
    const u = new URL(uri);
    return (u.protocol === "https:" || u.protocol === "http:") && originAllowedBy(origins, u.origin);
  } catch {
    return false;
  }
}

const bounded = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);
