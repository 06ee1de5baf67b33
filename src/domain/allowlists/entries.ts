import { badRequest } from "../../errors.js";
import { canonicalEmail } from "../verifications/email.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";

export const ENTRY_TYPES = ["walletPublicKey", "email", "emailDomain", "phoneNumber"] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** What a caller sent: type + value, and/or the one field named after the type. */
export interface EntryIdentifierInput {
  type: string | null;
  value: string | null;
  walletPublicKey: string | null;
  email: string | null;
  emailDomain: string | null;
  phoneNumber: string | null;
  chain: string | null;
}

export interface EntryIdentifier {
  type: EntryType;
  value: string;
  chain: string | null;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * The identifier of a new entry in canonical form, so that the same identifier always compares equal:
 * wallet addresses per chain (EIP-55 on EVM), e-mail addresses and domains as the one e-mail normaliser
 * writes them (the form sign-in compares them in), E.164 numbers.
 * Throws 400 when the identifier is missing, ambiguous or invalid for its type.
 */
export function entryIdentifier(input: EntryIdentifierInput): EntryIdentifier {
  const named = ENTRY_TYPES.filter((t) => input[t]);
  if (named.length > 1)
    throw badRequest("ambiguous_entry", `an entry names one identifier; got ${named.join(", ")}`);
  let type: string;
  let raw: string;
  if (input.type) {
    type = input.type;
    const fromField = input[input.type as EntryType];
    if (named.length === 1 && named[0] !== input.type)
      throw badRequest("ambiguous_entry", `type is ${input.type} but ${named[0]} was given`);
    if (input.value && fromField && input.value !== fromField)
      throw badRequest("ambiguous_entry", `value and ${input.type} differ`);
    raw = input.value || fromField || "";
    if (!raw) throw badRequest("entry_value_required", "value is required", { field: "value" });
  } else {
    if (input.value) throw badRequest("entry_type_required", "type is required with value", { field: "type" });
    if (named.length === 0)
      throw badRequest("entry_identifier_required", `an entry needs type and value, or one of ${ENTRY_TYPES.join(", ")}`);
    type = named[0]!;
    raw = input[named[0]!]!;
  }
  if (input.chain && type !== "walletPublicKey") throw badRequest("chain_not_applicable", "chain applies to walletPublicKey entries only", { field: "chain" });
  return { type: type as EntryType, ...normalize(type as EntryType, raw.trim(), input.chain) };
}

function normalize(type: EntryType, raw: string, chain: string | null): { value: string; chain: string | null } {
  switch (type) {
    case "walletPublicKey": {
      const c = chain || "EVM";
      return { value: normalizeWalletAddress(c, raw), chain: c };
    }
    case "email": {
      const v = canonicalEmail(raw);
      if (v === null) throw badRequest("invalid_email", "email must be a plain email address (no quoted local part)", { field: "email" });
      return { value: v, chain: null };
    }
    case "emailDomain": {
      // The domain of a canonical address (IDNA, lower case), so that an entry compares as sign-in sees it.
      const v = canonicalEmail(`x@${raw.replace(/^@/, "").replace(/\.$/, "")}`)?.split("@")[1] ?? "";
      if (!DOMAIN.test(v)) throw badRequest("invalid_email_domain", "emailDomain must be a domain name such as example.com", { field: "emailDomain" });
      return { value: v, chain: null };
    }
    case "phoneNumber": {
      const v = raw.replace(/[\s().-]/g, "");
      if (!E164.test(v)) throw badRequest("invalid_phone_number", "phoneNumber must be an E.164 number such as +14155550100", { field: "phoneNumber" });
      return { value: v, chain: null };
    }
  }
}
