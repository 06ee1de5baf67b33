import { getAddress, isAddressEqual, recoverMessageAddress, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { badRequest, unprocessable } from "../../errors.js";
import type { SignInMessage } from "./message-rules.js";

const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;

/**
 * Reads an EIP-4361 (Sign-In With Ethereum) message with viem. Every field the standard requires must be
 * there: an unparsable message is 400, not a failed proof.
 */
export function parseEvmMessage(text: string): SignInMessage {
  const m = parseSiweMessage(text);
  if (!m.address || m.domain === undefined || !m.uri || !m.nonce || m.chainId === undefined || !m.issuedAt || m.version !== "1")
    throw badRequest(
      "invalid_message",
      "messageToSign must be an EIP-4361 sign-in message with domain, address, URI, Version 1, Chain ID, Nonce and Issued At",
    );
  return {
    domain: m.domain,
    scheme: m.scheme,
    address: m.address,
    uri: m.uri,
    chainId: String(m.chainId),
    nonce: m.nonce,
    issuedAt: m.issuedAt,
    expirationTime: m.expirationTime,
    notBefore: m.notBefore,
  };
}

/**
 * Checks an EOA's signature (EIP-191 personal_sign) over the message: the recovered signer must be the
 * wallet. Contract wallets (EIP-1271/6492) would need a chain RPC and are not accepted.
 */
export async function verifyEvmSignature(text: string, signature: string, address: string): Promise<void> {
  if (!SIGNATURE_HEX.test(signature)) throw badRequest("invalid_signature", "signedMessage must be a 65-byte 0x-prefixed hex signature");
  let signer: string;
  try {
    signer = await recoverMessageAddress({ message: text, signature: signature as Hex });
  } catch {
    throw unprocessable("invalid_signature", "the signature does not verify for this wallet");
  }
  const message = parseSiweMessage(text);
  // viem's own check of the message against the wallet (address, time window) as the last gate.
  if (!isAddressEqual(signer as Hex, getAddress(address)) || !validateSiweMessage({ message, address: address as Hex }))
    throw unprocessable("invalid_signature", "the signature does not verify for this wallet");
}
