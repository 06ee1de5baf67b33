import { badRequest } from "../../errors.js";

/**
 * The fixed layout of a wallet sign-in message, shared by EIP-4361 (Sign-In With Ethereum) and the Solana
 * sign-in message (CAIP-122):
 *
 *   [scheme://]domain wants you to sign in with your <Ethereum|Solana> account:
 *   <address>
 *   <blank>
 *   [<statement, one line>
 *   <blank>]
 *   URI: ...            the fields, each on its own line, in this order, each at most once
 *   Version: ...
 *   Chain ID: ...
 *   Nonce: ...
 *   Issued At: ...
 *   Expiration Time: ...
 *   Not Before: ...
 *   Request ID: ...
 *   Resources:
 *   - <uri>             one line per resource, to the end
 *
 * EIP-4361 writes a second blank line where there is no statement; the Solana layout does not: both are
 * read. Everything is positional: a line in the statement's place is the statement whatever it looks like
 * (a "Nonce: ..." there is never the nonce), and an unknown, repeated, misplaced or malformed field line
 * refuses the message, so what the server reads is exactly what the wallet showed its user.
 */

export const FIELD_ORDER = ["URI", "Version", "Chain ID", "Nonce", "Issued At", "Expiration Time", "Not Before", "Request ID"] as const;
export type FieldName = (typeof FIELD_ORDER)[number];

export interface MessageLayout {
  scheme?: string;
  domain: string;
  address: string;
  statement?: string;
  fields: Partial<Record<FieldName, string>>;
  resources?: string[];
}

const FIELD_LINE = /^([A-Za-z][A-Za-z ]*[A-Za-z]): (.*)$/;
const RESOURCE_LINE = /^- (\S.*)$/;

/** Reads the layout, or throws 400 invalid_message saying what is wrong (`what` names the message kind). */
export function parseMessageLayout(text: string, account: "Ethereum" | "Solana", what: string): MessageLayout {
  const invalid = (why: string) => badRequest("invalid_message", `messageToSign must be ${what}: ${why}`);
  if (text.includes("\r")) throw invalid("lines end with LF only");
  const lines = text.split("\n");
  // A trailing newline carries nothing; some wallets add one.
  while (lines.length > 2 && lines[lines.length - 1] === "") lines.pop();
  const header = new RegExp(`^(?:([a-zA-Z][a-zA-Z0-9+\\-.]*)://)?([^\\s/]+) wants you to sign in with your ${account} account:$`).exec(lines[0]!);
  if (!header) throw invalid(`its first line must be '<domain> wants you to sign in with your ${account} account:'`);
  const address = lines[1];
  if (!address) throw invalid("its second line must be the address");

  let statement: string | undefined;
  let at = lines.length;
  if (lines.length > 2) {
    if (lines[2] !== "") throw invalid("a blank line must follow the address");
    if (lines[3] === "") at = 4;
    else if (lines[4] === "") {
      statement = lines[3];
      at = 5;
    } else at = 3;
  }

  const fields: MessageLayout["fields"] = {};
  let resources: string[] | undefined;
  let last = -1;
  for (; at < lines.length; at++) {
    const line = lines[at]!;
    if (line === "Resources:") {
      resources = lines.slice(at + 1).map((r) => RESOURCE_LINE.exec(r)?.[1] ?? "");
      if (resources.some((r) => r === "")) throw invalid("each line after 'Resources:' must be '- <uri>'");
      break;
    }
    const f = FIELD_LINE.exec(line);
    if (!f) throw invalid(`line ${at + 1} is not a 'Name: value' field`);
    const name = f[1] as FieldName;
    const index = FIELD_ORDER.indexOf(name);
    if (index < 0) throw invalid(`${JSON.stringify(f[1]!.slice(0, 40))} is not a field of the message`);
    if (index <= last) throw invalid(`${name} is repeated or out of order (the order is ${FIELD_ORDER.join(", ")}, Resources)`);
    if (f[2] === "" && name !== "Request ID") throw invalid(`${name} is empty`);
    last = index;
    fields[name] = f[2];
  }
  return { scheme: header[1], domain: header[2]!, address, statement, fields, resources };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A time field (RFC 3339); an invalid one becomes an invalid Date, which the message rules refuse. */
export const messageDate = (v: string | undefined) => (v === undefined ? undefined : RFC3339.test(v) ? new Date(v) : new Date(Number.NaN));
