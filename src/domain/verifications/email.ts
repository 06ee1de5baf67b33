import { domainToASCII } from "node:url";
import { badRequest } from "../../errors.js";

/**
 * The one e-mail normaliser. An address is an identifier everywhere (sign-in lookup, uniqueness, block lists
 * and allowlists, send budgets, the test account), so two spellings of one mailbox must never make two
 * identifiers. Mail systems treat `"banned"@example.com`, `banned(note)@example.com` and `ban\ned@...` as
 * the plain address, while a string comparison sees new ones: such forms (quoted local parts, comments,
 * escapes, IP literals) are refused rather than canonicalised, since no real address needs them. What is
 * accepted is a dot-atom local part (RFC 5322; UTF-8 allowed as RFC 6531 does) at a host name; the result
 * is lower-cased, its domain in ASCII (IDNA: `bücher.example` and `xn--bcher-kva.example` are one domain)
 * without a trailing dot.
 */

// atext of RFC 5322 plus any non-ASCII character; dots only between atoms.
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~\\-\\u0080-\\u{10FFFF}]+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, "u");
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOST = new RegExp(`^(?=.{1,253}$)(?:${LABEL}\\.)+${LABEL}$`);

/** Why `raw` is not a plain e-mail address, or null when it is one (what the API's email fields accept). */
export function emailProblem(raw: string): string | null {
  return canonicalEmail(raw) === null ? "must be an email address (a plain local part: no quotes, comments or escapes)" : null;
}

/**
 * The canonical form of an address, or 400 validation_error naming `field` (the same answer the API's
 * field rules give) when it is not a plain address.
 */
export function normaliseEmail(raw: string, field = "email"): string {
  const email = canonicalEmail(raw);
  if (email === null) {
    const message = emailProblem(raw)!;
    throw badRequest("validation_error", `invalid request: ${field} ${message}`, { errors: [{ field, message }] });
  }
  return email;
}

/**
 * The canonical form, or null when `raw` is not a plain address: for addresses another party vouches for
 * (an identity provider's), which are dropped rather than refused.
 */
export function canonicalEmail(raw: string): string | null {
  const trimmed = raw.trim().normalize("NFC").toLowerCase();
  if (trimmed.length > 254) return null;
  const at = trimmed.lastIndexOf("@");
  if (at <= 0) return null;
  const local = trimmed.slice(0, at);
  const rawDomain = trimmed.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return null;
  // domainToASCII answers "" for what is no domain name; brackets (IP literals) and ports never get that far.
  if (!rawDomain || /[[\]:/\\@\s]/.test(rawDomain) || rawDomain.endsWith(".")) return null;
  const domain = domainToASCII(rawDomain);
  if (!domain || !HOST.test(domain)) return null;
  return `${local}@${domain}`;
}
