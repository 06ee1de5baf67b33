import type { Address } from "@solana/kit";
import type { NodeMessage } from "./wire.js";

/** The compute budget program: its instructions set a transaction's compute-unit limit and price. */
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111" as Address;
/** The most compute units a transaction may ask for. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;

const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

function limitData(units: number): Uint8Array {
  const data = new Uint8Array(5);
  data[0] = SET_COMPUTE_UNIT_LIMIT;
  new DataView(data.buffer).setUint32(1, units, true);
  return data;
}

function priceData(microLamports: bigint): Uint8Array {
  const data = new Uint8Array(9);
  data[0] = SET_COMPUTE_UNIT_PRICE;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return data;
}

/**
 * The message with its compute-unit limit and price set: any SetComputeUnitLimit / SetComputeUnitPrice it
 * had is removed (its other compute-budget instructions, heap size and loaded-data limit, stay), and the new
 * ones go first. The message is edited in its compiled form, so every other instruction, account and lookup
 * keeps its place: the compute budget program is appended to the read-only static accounts when missing, and
 * the indices of accounts loaded from lookup tables (which follow the static ones) move up by one. A price of
 * zero sets no price instruction.
 */
export function withComputeBudget(message: NodeMessage, units: number, microLamports: bigint): NodeMessage {
  let staticAccounts = message.staticAccounts;
  let header = message.header;
  let programIndex = staticAccounts.indexOf(COMPUTE_BUDGET_PROGRAM);
  let shift = (i: number) => i;
  if (programIndex < 0) {
    programIndex = staticAccounts.length;
    const loadedFrom = staticAccounts.length;
    shift = (i) => (i >= loadedFrom ? i + 1 : i);
    staticAccounts = [...staticAccounts, COMPUTE_BUDGET_PROGRAM];
    header = { ...header, numReadonlyNonSignerAccounts: header.numReadonlyNonSignerAccounts + 1 };
  }
  const kept = message.instructions
    .filter((ix) => {
      if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM) return true;
      const kind = ix.data?.[0];
      return kind !== SET_COMPUTE_UNIT_LIMIT && kind !== SET_COMPUTE_UNIT_PRICE;
    })
    .map((ix) => ({ ...ix, programAddressIndex: shift(ix.programAddressIndex), ...(ix.accountIndices ? { accountIndices: ix.accountIndices.map(shift) } : {}) }));
  const budget = [{ programAddressIndex: programIndex, data: limitData(units) }, ...(microLamports > 0n ? [{ programAddressIndex: programIndex, data: priceData(microLamports) }] : [])];
  return { ...message, header, staticAccounts, instructions: [...budget, ...kept] } as NodeMessage;
}
