import { hashMessage, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { recoverAddress } from "../../crypto/secp256k1-recover.js";
import { badRequest, unprocessable } from "../../errors.js";
import { messageDate, parseMessageLayout } from "./message-layout.js";
import type { SignInMessage } from "./message-rules.js";

const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;
const ANY_SIGNATURE_HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

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
 * Whether a smart-contract wallet accepts the signature over the message's EIP-191 hash (ERC-1271, ERC-6492),
 * asked of its chain's node (smart-account.ts). `eoaShaped`: the signature is 65 bytes, so it may be an EOA's
 * that simply did not verify.
 */
export type ContractWalletCheck = (hash: Hex, signature: Hex, address: string, eoaShaped: boolean) => Promise<boolean>;

/**
 * Checks the wallet's signature over the message. An EOA's first (EIP-191 personal_sign, 65 bytes): the key
 * is recovered natively (src/crypto/secp256k1-recover.ts), no node is asked, so an EOA sign-in costs what it
 * always did. Only when that does not name the wallet, and a `contractWallet` check is given, is the wallet
 * asked as a contract (ERC-1271 / ERC-6492, any signature length). viem's own check of the message against
 * the wallet (address, time window) comes before either.
 */
export async function verifyEvmSignature(text: string, signature: string, address: string, contractWallet?: ContractWalletCheck): Promise<void> {
  const eoaShaped = SIGNATURE_HEX.test(signature);
  if (!(contractWallet ? ANY_SIGNATURE_HEX.test(signature) : eoaShaped))
    throw badRequest(
      "invalid_signature",
      contractWallet
        ? "signedMessage must be 0x-prefixed hex: 65 bytes from an EOA, any whole number of bytes from a smart-contract wallet"
        : "signedMessage must be a 65-byte 0x-prefixed hex signature",
    );
  const refused = () => unprocessable("invalid_signature", "the signature does not verify for this wallet");
  // viem's reading of the message against the wallet (address, time window) first: it costs no node call.
  if (!validateSiweMessage({ message: parseSiweMessage(text), address: address as Hex })) throw refused();
  const hash = hashMessage(text);
  let verified = false;
  if (eoaShaped) {
    try {
      verified = recoverAddress(hash, signature as Hex) === address.toLowerCase();
    } catch {
      verified = false;
    }
  }
  if (!verified && contractWallet) verified = await contractWallet(hash, signature as Hex, address, eoaShaped);
  if (!verified) throw refused();
}
