import { getAddress, isAddress, isHex, type Address, type Hex } from "viem";
import { badRequest } from "../../errors.js";
import { unsupportedChain } from "../chains/errors.js";

/** The largest EVM word: no quantity (wei, gas, nonce) is larger. */
const MAX_UINT256 = 2n ** 256n - 1n;

/**
 * The chain id of a simulation request: decimal ("1"), 0x ("0x1") or CAIP-2 ("eip155:1"). Another CAIP-2
 * namespace (solana:..., bip122:...) is a chain these operations do not simulate: 422 unsupported_chain.
 */
export function parseChainId(raw: string): number {
  const text = raw.trim();
  const caip = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/.exec(text);
  if (caip && caip[1] !== "eip155") throw unsupportedChain(caip[1]!);
  const id = caip ? caip[2]! : text;
  const value = /^[0-9]{1,16}$/.test(id) ? Number(id) : /^0x[0-9a-fA-F]{1,13}$/.test(id) ? Number.parseInt(id.slice(2), 16) : NaN;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw badRequest("invalid_chain_id", "chainId must be a positive EVM chain id: decimal, 0x or eip155:<id>", { field: "chainId" });
  return value;
}

/** An EVM address in any case, answered checksummed; 400 invalid_address naming the field otherwise. */
export function parseAddress(field: string, raw: unknown): Address {
  if (typeof raw !== "string" || !isAddress(raw.trim(), { strict: false }))
    throw badRequest("invalid_address", `${field} is not an EVM address (0x and 40 hex digits)`, { field });
  return getAddress(raw.trim());
}

/** Bytes as 0x hex (an even number of digits); empty, absent or "0x" is no bytes. 400 invalid_hex_data otherwise. */
export function parseHexData(field: string, raw: unknown): Hex {
  if (raw === undefined || raw === null || raw === "") return "0x";
  if (typeof raw !== "string" || !isHex(raw, { strict: true }) || raw.length % 2 !== 0)
    throw badRequest("invalid_hex_data", `${field} must be 0x followed by an even number of hex digits`, { field });
  return raw.toLowerCase() as Hex;
}

/**
 * A non-negative integer below 2^256: a decimal or 0x string, or a JSON number that is a safe integer (a
 * larger one has lost digits already). Empty or absent is `fallback` when one is given. 400 invalid_quantity.
 */
export function parseQuantity(field: string, raw: unknown, fallback?: bigint): bigint {
  if ((raw === undefined || raw === null || raw === "") && fallback !== undefined) return fallback;
  let value: bigint | null = null;
  if (typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0) value = BigInt(raw);
  if (typeof raw === "string") {
    const text = raw.trim();
    if (/^[0-9]{1,78}$/.test(text) || /^0x[0-9a-fA-F]{1,64}$/.test(text)) value = BigInt(text);
  }
  if (value === null || value > MAX_UINT256)
    throw badRequest("invalid_quantity", `${field} must be a non-negative integer below 2^256 (decimal or 0x)`, { field });
  return value;
}
