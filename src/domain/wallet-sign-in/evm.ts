import { hashMessage, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { recoverAddress } from "../../crypto/secp256k1-recover.js";
import { badRequest, unprocessable } from "../../errors.js";
import { messageDate, parseMessageLayout } from "./message-layout.js";
import type { SignInMessage } from "./message-rules.js";

const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const CHAIN_ID = /^[1-9][0-9]{0,18}$/;
const NONCE = /^[A-Za-z0-9]{8,}$/;
const WHAT = "an EIP-4361 sign-in message";

/**
 * Reads an EIP-4361 (Sign-In With Ethereum) message in its fixed layout (message-layout.ts). Every field
 * the standard requires must be there: an unparsable message is 400, not a failed proof. viem's reading
 * of the same text (parseSiweMessage, which finds its fields anywhere) stays the signature's last gate.
 */
export function parseEvmMessage(text: string): SignInMessage {
  const m = parseMessageLayout(text, "Ethereum", WHAT);
  const f = m.fields;
  const missing = (["URI", "Version", "Chain ID", "Nonce", "Issued At"] as const).filter((k) => f[k] === undefined);
  const invalid = (why: string) => badRequest("invalid_message", `messageToSign must be ${WHAT}: ${why}`);
  if (missing.length) throw invalid(`it lacks ${missing.join(", ")}`);
  if (!ADDRESS.test(m.address)) throw invalid("the second line must be a 0x address");
  if (f.Version !== "1") throw invalid("its Version must be 1");
  if (!CHAIN_ID.test(f["Chain ID"]!)) throw invalid("its Chain ID must be an EIP-155 chain id");
  if (!NONCE.test(f.Nonce!)) throw invalid("its Nonce must be alphanumeric, at least 8 characters");
  return {
    domain: m.domain,
    scheme: m.scheme,
    address: m.address,
    uri: f.URI,
    chainId: f["Chain ID"],
    nonce: f.Nonce!,
    issuedAt: messageDate(f["Issued At"]),
    expirationTime: messageDate(f["Expiration Time"]),
    notBefore: messageDate(f["Not Before"]),
    resources: m.resources,
  };
}

/**
 * Checks an EOA's signature (EIP-191 personal_sign) over the message: the recovered signer must be the
 * wallet. Contract wallets (EIP-1271/6492) would need a chain RPC and are not accepted. viem hashes the
 * message (EIP-191); the key is recovered natively (src/crypto/secp256k1-recover.ts).
 */
export async function verifyEvmSignature(text: string, signature: string, address: string): Promise<void> {
  if (!SIGNATURE_HEX.test(signature)) throw badRequest("invalid_signature", "signedMessage must be a 65-byte 0x-prefixed hex signature");
  let signer: string;
  try {
    signer = recoverAddress(hashMessage(text), signature as Hex);
  } catch {
    throw unprocessable("invalid_signature", "the signature does not verify for this wallet");
  }
  const message = parseSiweMessage(text);
  // viem's own check of the message against the wallet (address, time window) as the last gate.
  if (signer !== address.toLowerCase() || !validateSiweMessage({ message, address: address as Hex }))
    throw unprocessable("invalid_signature", "the signature does not verify for this wallet");
}
