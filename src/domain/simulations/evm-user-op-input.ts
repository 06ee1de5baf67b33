import { concat, numberToHex, pad, type Address, type Hex } from "viem";
import { badRequest } from "../../errors.js";
import { parseAddress, parseHexData, parseQuantity } from "./evm-input.js";

/** A user operation in the EntryPoint's packed form (v0.7 and v0.8 share it), as handleOps takes it. */
export interface PackedUserOperation {
  sender: Address;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  accountGasLimits: Hex;
  preVerificationGas: bigint;
  gasFees: Hex;
  paymasterAndData: Hex;
  signature: Hex;
}

const REQUIRED = ["sender", "nonce", "callData", "callGasLimit", "verificationGasLimit", "preVerificationGas", "maxFeePerGas", "maxPriorityFeePerGas"] as const;

const word16 = (v: bigint) => pad(numberToHex(v), { size: 16 });
/** Gas limits and fees are packed in 16 bytes each: a larger one is not a quantity the EntryPoint can take. */
const MAX_UINT128 = 2n ** 128n - 1n;

/**
 * The request's `operation` in the JSON-RPC form bundlers accept (eth_sendUserOperation of ERC-4337 v0.7+),
 * packed. The account's creation as factory + factoryData or as initCode (their concatenation, the v0.6
 * name); the paymaster as its four fields or as paymasterAndData. 400 invalid_user_operation when it is not
 * an object or a required member is missing; a member of the wrong form answers its own code.
 */
export function packUserOperation(raw: unknown): PackedUserOperation {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw badRequest("invalid_user_operation", "operation must be a user operation object", { field: "operation" });
  const op = raw as Record<string, unknown>;
  for (const name of REQUIRED) {
    if (op[name] === undefined || op[name] === null || op[name] === "")
      throw badRequest("invalid_user_operation", `operation.${name} is required`, { field: `operation.${name}` });
  }
  const q = (name: string) => {
    const value = parseQuantity(`operation.${name}`, op[name], 0n);
    if (name !== "nonce" && value > MAX_UINT128) throw badRequest("invalid_quantity", `operation.${name} must be below 2^128`, { field: `operation.${name}` });
    return value;
  };
  const initCode = op.factory ? concat([parseAddress("operation.factory", op.factory), parseHexData("operation.factoryData", op.factoryData)]) : parseHexData("operation.initCode", op.initCode);
  if (initCode !== "0x" && initCode.length < 42)
    throw badRequest("invalid_hex_data", "operation.initCode must start with the factory's address", { field: "operation.initCode" });
  const paymasterAndData = op.paymaster
    ? concat([parseAddress("operation.paymaster", op.paymaster), word16(q("paymasterVerificationGasLimit")), word16(q("paymasterPostOpGasLimit")), parseHexData("operation.paymasterData", op.paymasterData)])
    : parseHexData("operation.paymasterAndData", op.paymasterAndData);
  if (paymasterAndData !== "0x" && paymasterAndData.length < 106)
    throw badRequest("invalid_hex_data", "operation.paymasterAndData must hold the paymaster's address and its two gas limits", { field: "operation.paymasterAndData" });
  return {
    sender: parseAddress("operation.sender", op.sender),
    nonce: q("nonce"),
    initCode,
    callData: parseHexData("operation.callData", op.callData),
    accountGasLimits: concat([word16(q("verificationGasLimit")), word16(q("callGasLimit"))]),
    preVerificationGas: q("preVerificationGas"),
    gasFees: concat([word16(q("maxPriorityFeePerGas")), word16(q("maxFeePerGas"))]),
    paymasterAndData,
    signature: parseHexData("operation.signature", op.signature),
  };
}
