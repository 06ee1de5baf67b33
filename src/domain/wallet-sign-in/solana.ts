import { ed25519 } from "@noble/curves/ed25519.js";
import { base58, base64 } from "@scure/base";
import { badRequest, unprocessable } from "../../errors.js";
import type { SignInMessage } from "./message-rules.js";

/**
 * The Solana sign-in message (Sign In With Solana), the text the wallet signs: the EIP-4361 layout with
 * "Solana account" in its first line and a base58 address.
 *
 *   example.com wants you to sign in with your Solana account:
 *   <base58 address>
 *
 *   <optional statement>
 *
 *   URI: https://example.com
 *   Version: 1
 *   Chain ID: mainnet
 *   Nonce: <nonce>
 *   Issued At: 2026-01-01T00:00:00.000Z
 */
const HEADER =
  /^(?:(?<scheme>[a-zA-Z][a-zA-Z0-9+\-.]*):\/\/)?(?<domain>[^\s/]+) wants you to sign in with your Solana account:\n(?<address>[1-9A-HJ-NP-Za-km-z]{32,44})(?:\n|$)/;
const FIELD = /^(URI|Version|Chain ID|Nonce|Issued At|Expiration Time|Not Before|Request ID): (.+)$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const date = (v: string | undefined) => (v === undefined ? undefined : RFC3339.test(v) ? new Date(v) : new Date(Number.NaN));

export function parseSolanaMessage(text: string): SignInMessage {
  const head = HEADER.exec(text);
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const f = FIELD.exec(line);
    // The first occurrence counts: a statement cannot smuggle a second Nonce past the parser.
    if (f && !fields.has(f[1])) fields.set(f[1], f[2]);
  }
  const nonce = fields.get("Nonce");
  if (!head?.groups || !nonce)
    throw badRequest(
      "invalid_message",
      "messageToSign must be a Solana sign-in message: '<domain> wants you to sign in with your Solana account:', the address, and a Nonce",
    );
  return {
    domain: head.groups.domain,
    scheme: head.groups.scheme,
    address: head.groups.address,
    uri: fields.get("URI"),
    chainId: fields.get("Chain ID"),
    nonce,
    issuedAt: date(fields.get("Issued At")),
    expirationTime: date(fields.get("Expiration Time")),
    notBefore: date(fields.get("Not Before")),
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
