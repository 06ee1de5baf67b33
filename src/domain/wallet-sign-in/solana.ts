import { ed25519 } from "@noble/curves/ed25519.js";
import { base58, base64 } from "@scure/base";
import { badRequest, unprocessable } from "../../errors.js";
import { messageDate, parseMessageLayout } from "./message-layout.js";
import type { SignInMessage } from "./message-rules.js";

/**
 * The Solana sign-in message (Sign In With Solana, CAIP-122), the text the wallet signs, read in its fixed
 * layout (message-layout.ts): "<domain> wants you to sign in with your Solana account:", the base58
 * address, an optional one-line statement, then the fields in their order. Every field is optional in the
 * standard; Sigil needs the Nonce it issued. A "Nonce:" or "URI:" written in the statement is statement
 * text, never the field.
 */
const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const WHAT = "a Solana sign-in message";

export function parseSolanaMessage(text: string): SignInMessage {
  const m = parseMessageLayout(text, "Solana", WHAT);
  const invalid = (why: string) => badRequest("invalid_message", `messageToSign must be ${WHAT}: ${why}`);
  if (!ADDRESS.test(m.address)) throw invalid("the second line must be a base58 address");
  const { Nonce: nonce, Version: version } = m.fields;
  if (!nonce) throw invalid("it must carry the Nonce issued by getNonce");
  if (version !== undefined && version !== "1") throw invalid("its Version must be 1");
  return {
    domain: m.domain,
    scheme: m.scheme,
    address: m.address,
    uri: m.fields.URI,
    chainId: m.fields["Chain ID"],
    nonce,
    issuedAt: messageDate(m.fields["Issued At"]),
    expirationTime: messageDate(m.fields["Expiration Time"]),
    notBefore: messageDate(m.fields["Not Before"]),
  };
}

/** The 64-byte signature as wallets send it: base58 (Phantom and most), else base64. */
function decodeSignature(signature: string): Uint8Array {
  for (const codec of [base58, base64]) {
    try {
      const bytes = codec.decode(signature);
      if (bytes.length === 64) return bytes;
    } catch {
      // not this encoding
    }
  }
  throw badRequest("invalid_signature", "signedMessage must be a 64-byte ed25519 signature in base58 or base64");
}

/** Checks the ed25519 signature over the message's UTF-8 bytes with the wallet's public key (its address). */
export function verifySolanaSignature(text: string, signature: string, address: string): void {
  const sig = decodeSignature(signature);
  let ok = false;
  try {
    ok = ed25519.verify(sig, new TextEncoder().encode(text), base58.decode(address));
  } catch {
    ok = false;
  }
  if (!ok) throw unprocessable("invalid_signature", "the signature does not verify for this wallet");
}
