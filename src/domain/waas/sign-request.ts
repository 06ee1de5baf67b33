import { bytesToHex } from "@noble/curves/utils.js";
import { base58, base64 } from "@scure/base";
import { hashAuthorization } from "viem/utils";
import { formatUnits, hashMessage, hashTypedData, isHex, keccak256, parseTransaction, serializeTransaction, type TransactionSerializable } from "viem";
import { findWaasPolicy } from "../../db/repositories/waas.js";
import { badRequest, unprocessable } from "../../errors.js";
import { solanaNetworkIdOf } from "../chains/solana-clusters.js";
import type { Deps } from "../deps.js";
import { canonicalEvmAddress } from "../wallets/addresses.js";
import { evmTransactionRequest, evmTypedDataRequest } from "./evm-moves.js";
import { evaluatePolicy, policyDenied, type SigningRequest } from "./policy.js";
import { refuseTransactionMessage, solanaMessageOf } from "./sign-request-svm.js";
import type { WaasChain } from "./threshold/share-operations.js";

/**
 * What the client asks a threshold wallet to sign (the published client's SignMessageWithWaasRequest and its
 * SignMessageContext), turned into exactly what is signed and into the facts the WaaS policy judges. EVM
 * wallets sign a 32-byte digest (EIP-191 message, EIP-712 typed data, an EIP-155 transaction serialised by
 * viem, an EIP-7702 authorization); Solana wallets sign the exact bytes (a message, or a transaction's message
 * bytes; message bytes that are a transaction's message are refused). EVM addresses pass the one check of
 * every path (canonicalEvmAddress) and are used checksummed. Nothing is signed here: the room keeps what to
 * sign, the wallet's actor signs it.
 */

export interface SignMessageInput {
  message: string;
  isFormatted?: boolean;
  context?: {
    evmTransaction?: { to: string; chainId: number; data?: string; gas?: string; gasPrice?: string; maxFeePerGas?: string; maxPriorityFeePerGas?: string; nonce?: number; value?: string };
    evmTypedData?: { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> };
    evmMessage?: { raw: string };
    eip7702Auth?: { address: string; chainId: number; nonce: number };
    svmTransaction?: { chainId?: string; method?: string; serializedTransactions: string[] };
    svmMessage?: string;
    [other: string]: unknown;
  };
}

export type PreparedSignature =
  | { scheme: "ecdsa-secp256k1"; digest: `0x${string}`; kind: "message" | "typedData" | "transaction" | "authorization"; serialized?: `0x${string}` }
  | { scheme: "frost-ed25519"; message: string; kind: "message" | "transaction" };

const invalid = (what: string, why: string) => badRequest("invalid_sign_request", `${what}: ${why}`, { field: what });

const UINT256_MAX = 2n ** 256n - 1n;

/** A decimal or 0x-hex integer string (a uint256) as a bigint; 400 for anything else. */
function integer(v: unknown, what: string): bigint | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || v.length > 80 || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) throw invalid(what, "not an integer string");
  const n = BigInt(v);
  if (n > UINT256_MAX) throw invalid(what, "larger than a uint256");
  return n;
}

/** The checksummed form of an EVM address the request names; 400 for anything else (a bad checksum too). */
function evmAddress(v: unknown, what: string): `0x${string}` {
  const address = typeof v === "string" ? canonicalEvmAddress(v) : null;
  if (!address) throw invalid(what, "not an address (or not its EIP-55 checksum)");
  return address as `0x${string}`;
}

/** 0x-hex of whole bytes (odd-length hex has no one byte reading). */
const isHexBytes = (v: unknown): v is `0x${string}` => typeof v === "string" && isHex(v) && v.length % 2 === 0;

function evm(input: SignMessageInput, allowedEvmChainIds?: readonly number[]): { prepared: PreparedSignature; requests: SigningRequest[] } {
  const c = input.context ?? {};
  if (c.evmTransaction) {
    const t = c.evmTransaction;
    if (!Number.isSafeInteger(t.chainId) || t.chainId <= 0) throw unprocessable("unsupported_chain_id", "evmTransaction.chainId must be a positive integer (EIP-155)");
    if (allowedEvmChainIds && !allowedEvmChainIds.includes(t.chainId)) throw unprocessable("unsupported_chain_id", `chain ${t.chainId} is not enabled for this environment`, { chainId: t.chainId });
    const to = evmAddress(t.to, "context.evmTransaction.to");
    if (t.data !== undefined && t.data !== "" && !isHexBytes(t.data)) throw invalid("context.evmTransaction.data", "not 0x-hex bytes");
    if (t.nonce !== undefined && (!Number.isSafeInteger(t.nonce) || t.nonce < 0)) throw invalid("context.evmTransaction.nonce", "not a non-negative integer");
    const value = integer(t.value, "context.evmTransaction.value") ?? 0n;
    const base = {
      chainId: t.chainId,
      to,
      value,
      ...(t.data ? { data: t.data as `0x${string}` } : {}),
      ...(t.nonce !== undefined ? { nonce: t.nonce } : {}),
      ...(t.gas ? { gas: integer(t.gas, "context.evmTransaction.gas") } : {}),
    };
    const tx: TransactionSerializable = t.maxFeePerGas
      ? { ...base, type: "eip1559", maxFeePerGas: integer(t.maxFeePerGas, "context.evmTransaction.maxFeePerGas"), maxPriorityFeePerGas: integer(t.maxPriorityFeePerGas, "context.evmTransaction.maxPriorityFeePerGas") ?? 0n }
      : { ...base, type: "legacy", ...(t.gasPrice ? { gasPrice: integer(t.gasPrice, "context.evmTransaction.gasPrice") } : {}) };
    const serialized = serializeTransaction(tx);
    return {
      prepared: { scheme: "ecdsa-secp256k1", digest: keccak256(serialized), kind: "transaction", serialized },
      // The policy's limits are in ether (the chain's native unit), the transaction's value in wei.
      requests: [{ ...evmTransactionRequest(to, value, t.data ? (t.data as `0x${string}`) : undefined), chainId: t.chainId }],
    };
  }
  if (c.evmTypedData) {
    let digest: `0x${string}`;
    try {
      digest = hashTypedData(c.evmTypedData as Parameters<typeof hashTypedData>[0]);
    } catch (e) {
      throw invalid("context.evmTypedData", (e as Error).message.split("\n")[0]!);
    }
    const chainId = typedDataChainId(c.evmTypedData.domain);
    return { prepared: { scheme: "ecdsa-secp256k1", digest, kind: "typedData" }, requests: [{ ...evmTypedDataRequest(c.evmTypedData), ...(chainId ? { chainId } : {}) }] };
  }
  if (c.eip7702Auth) {
    const a = c.eip7702Auth;
    const address = evmAddress(a.address, "context.eip7702Auth.address");
    if (!Number.isSafeInteger(a.chainId) || a.chainId < 0 || !Number.isSafeInteger(a.nonce) || a.nonce < 0) throw invalid("context.eip7702Auth", "chainId and nonce are non-negative integers");
    const digest = hashAuthorization({ contractAddress: address, chainId: a.chainId, nonce: a.nonce });
    // Delegating the account to a contract is a transaction to it that lets the contract spend anything from then on:
    // the delegate is named, the value it may move is not.
    // Chain 0 authorises the delegation on every chain: bound to none.
    const request: SigningRequest = { chain: "EVM", method: "signTransaction", recipients: [address], value: "0", unknownValue: true, ...(a.chainId > 0 ? { chainId: a.chainId } : {}) };
    return { prepared: { scheme: "ecdsa-secp256k1", digest, kind: "authorization" }, requests: [request] };
  }
  const raw = c.evmMessage?.raw ?? (input.isFormatted ? input.message : undefined);
  if (raw !== undefined) {
    if (!isHexBytes(raw)) throw invalid(c.evmMessage ? "context.evmMessage.raw" : "message", "a formatted message is 0x-hex bytes");
    return { prepared: { scheme: "ecdsa-secp256k1", digest: hashMessage({ raw: raw as `0x${string}` }), kind: "message" }, requests: [{ chain: "EVM", method: "signMessage" }] };
  }
  if (typeof input.message !== "string" || !input.message) throw invalid("message", "nothing to sign");
  return { prepared: { scheme: "ecdsa-secp256k1", digest: hashMessage(input.message), kind: "message" }, requests: [{ chain: "EVM", method: "signMessage" }] };
}

/**
 * The chain EIP-712 typed data is bound to: its domain's chainId (a number, or a decimal or 0x-hex string
 * as JSON carries a uint256); undefined when it names none (or 0, which no chain has).
 */
function typedDataChainId(domain: Record<string, unknown> | undefined): number | undefined {
  const v = domain?.chainId;
  const n = typeof v === "number" ? v : typeof v === "string" && /^(0x[0-9a-fA-F]{1,16}|[0-9]{1,20})$/.test(v) ? Number(BigInt(v)) : undefined;
  return n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Solana message bytes: a formatted message is hex, base58 or base64 as given; else the UTF-8 text. */
function svmMessageBytes(text: string, formatted: boolean): Uint8Array {
  if (!formatted) return new TextEncoder().encode(text);
  if (/^0x[0-9a-fA-F]*$/.test(text) && text.length % 2 === 0) return Buffer.from(text.slice(2), "hex");
  for (const decode of [base58.decode, base64.decode]) {
    try {
      return decode(text);
    } catch {
      // the next encoding
    }
  }
  throw invalid("message", "a formatted Solana message is 0x-hex, base58 or base64");
}

function svm(input: SignMessageInput): { prepared: PreparedSignature; requests: SigningRequest[] } {
  const c = input.context ?? {};
  if (c.svmTransaction) {
    const txs = c.svmTransaction.serializedTransactions;
    if (!Array.isArray(txs) || txs.length !== 1) throw unprocessable("one_transaction_per_request", "sign one serialized transaction per request");
    const { messageBytes, moves } = solanaMessageOf(txs[0]!);
    // A Solana transaction's bytes name no cluster (its recent blockhash is of one, which the service, calling
    // no node, cannot look up): it is bound to the cluster the request names, when it names a known one.
    const cluster = typeof c.svmTransaction.chainId === "string" ? solanaNetworkIdOf(c.svmTransaction.chainId) : undefined;
    const request: SigningRequest = {
      chain: "SOL",
      ...(cluster ? { chainId: cluster } : {}),
      method: "signTransaction",
      recipients: moves.recipients,
      value: formatUnits(moves.lamports, 9),
      ...(moves.unknownRecipients ? { unknownRecipients: true } : {}),
      ...(moves.unknownValue ? { unknownValue: true } : {}),
    };
    return { prepared: { scheme: "frost-ed25519", message: bytesToHex(messageBytes), kind: "transaction" }, requests: [request] };
  }
  const field = c.svmMessage !== undefined ? "context.svmMessage" : "message";
  const text = c.svmMessage ?? input.message;
  if (typeof text !== "string" || !text) throw invalid(field, "nothing to sign");
  const bytes = svmMessageBytes(text, !!input.isFormatted);
  refuseTransactionMessage(bytes, field);
  return { prepared: { scheme: "frost-ed25519", message: bytesToHex(bytes), kind: "message" }, requests: [{ chain: "SOL", method: "signMessage" }] };
}

/** The unsigned EVM transaction `serialized` with its signature: what a node accepts (eth_sendRawTransaction). */
export function signedEvmTransaction(serialized: `0x${string}`, sig: { r: `0x${string}`; s: `0x${string}`; recovery: number }): `0x${string}` {
  // Legacy (EIP-155) transactions encode the recovery as v, typed ones as yParity: viem reads the one it needs.
  return serializeTransaction(parseTransaction(serialized), { r: sig.r, s: sig.s, yParity: sig.recovery, v: 27n + BigInt(sig.recovery) });
}

/**
 * What to sign for a wallet of `chain`, and the requests the WaaS policy judges. `allowedEvmChainIds`, when
 * given, are the only chains an EVM transaction may name (422 unsupported_chain_id otherwise).
 */
export function prepareSignature(chain: WaasChain, input: SignMessageInput, allowedEvmChainIds?: readonly number[]): { prepared: PreparedSignature; requests: SigningRequest[] } {
  if (JSON.stringify(input).length > 200_000) throw badRequest("invalid_sign_request", "the request is too large");
  return chain === "EVM" ? evm(input, allowedEvmChainIds) : svm(input);
}

/**
 * The environment's WaaS policy (src/domain/waas/policy.ts) applied to every request: the first refusal
 * answers 403 `policy_denied` naming the rule that denied it (or that no allow rule matched).
 */
export async function enforceSigningPolicy(deps: Pick<Deps, "db">, environmentId: string, requests: SigningRequest[]): Promise<void> {
  const policy = await findWaasPolicy(deps.db, environmentId);
  for (const r of requests) {
    const verdict = evaluatePolicy(policy?.rules ?? null, r);
    if (!verdict.allowed) throw policyDenied(verdict);
  }
}
