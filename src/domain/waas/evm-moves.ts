import { decodeFunctionData, erc20Abi, formatEther } from "viem";
import { canonicalEvmAddress } from "../wallets/addresses.js";
import type { SigningRequest } from "./policy.js";

/**
 * What an EVM request authorises, for the WaaS policy (src/domain/waas/policy.ts), in the words of its
 * SigningRequest: the addresses it pays or authorises, its native value, and what cannot be established.
 * - A transaction without calldata pays its recipient its value.
 * - ERC-20 transfer / approve / transferFrom (and ERC-721 transferFrom, which shares the selector) name the
 *   token contract and the party that receives or may spend; the amount is in the token's units, which a
 *   maxPerCall in the native unit cannot judge.
 * - Any other calldata may do anything the contract does: recipients and value unknown.
 * - An EIP-2612 Permit names its token (the domain's verifyingContract) and its spender, amount in tokens.
 * - Other typed data may authorise anything (orders, Permit2, meta-transactions): unknown.
 */

const TOKEN_MOVES: Record<string, number> = { transfer: 0, approve: 0, transferFrom: 1 };

/** A transaction to `to` (checksummed) with `wei` and optional calldata. */
export function evmTransactionRequest(to: string, wei: bigint, data: `0x${string}` | undefined): SigningRequest {
  const base = { chain: "EVM", method: "signTransaction" as const, value: formatEther(wei) };
  if (!data || data === "0x") return { ...base, recipients: [to] };
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data });
    const at = TOKEN_MOVES[call.functionName];
    const party = at === undefined ? null : canonicalEvmAddress(String(call.args?.[at]));
    if (party) return { ...base, recipients: [to, party], unknownValue: true };
  } catch {
    // not an ERC-20 call
  }
  return { ...base, recipients: [to], unknownRecipients: true, unknownValue: true };
}

/** EIP-712 typed data: a Permit by its token and spender; anything else unknown. */
export function evmTypedDataRequest(typed: { domain?: Record<string, unknown>; primaryType?: string; message?: Record<string, unknown> }): SigningRequest {
  const base = { chain: "EVM", method: "signTypedData" as const, value: "0", unknownValue: true };
  if (typed.primaryType === "Permit") {
    const token = canonicalEvmAddress(String(typed.domain?.verifyingContract ?? ""));
    const spender = canonicalEvmAddress(String(typed.message?.spender ?? ""));
    if (token && spender) return { ...base, recipients: [token, spender] };
  }
  return { ...base, recipients: [], unknownRecipients: true };
}
