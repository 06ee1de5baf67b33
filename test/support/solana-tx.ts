import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { appendTransactionMessageInstruction, createTransactionMessage, setTransactionMessageFeePayer, setTransactionMessageLifetimeUsingBlockhash } from "@solana/transaction-messages";
import { compileTransaction, getBase64EncodedWireTransaction } from "@solana/transactions";

/**
 * Solana transactions for tests, compiled with Solana's own codecs: the wire form a client sends (base64)
 * and the message bytes a signer signs. The instruction builders lay out the System Program's and the SPL
 * Token program's data as the programs read it (bincode, little-endian), so that what the service decodes
 * is what the chain would execute.
 */

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

/** AccountRole of @solana/instructions: 0 readonly, 1 writable, 2 readonly signer, 3 writable signer. */
type Role = 0 | 1 | 2 | 3;

export interface TestInstruction {
  programAddress: string;
  accounts: { address: string; role: Role }[];
  data: Uint8Array;
}

export const randomSolanaAddress = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));

/** A transaction paid by `payer` with these instructions; legacy or v0. */
export function solanaTransaction(payer: string, instructions: TestInstruction[], version: 0 | "legacy" = 0): { wire: string; message: Uint8Array } {
  let message: any = setTransactionMessageLifetimeUsingBlockhash(
    { blockhash: base58.encode(new Uint8Array(32).fill(7)) as never, lastValidBlockHeight: 100n },
    setTransactionMessageFeePayer(payer as never, createTransactionMessage({ version })),
  );
  for (const ix of instructions) message = appendTransactionMessageInstruction(ix as never, message);
  const compiled = compileTransaction(message);
  return { wire: getBase64EncodedWireTransaction(compiled), message: Uint8Array.from(compiled.messageBytes) };
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
/** A bincode String: u64 length, then the UTF-8 bytes. */
const str = (s: string) => Buffer.concat([u64(BigInt(Buffer.byteLength(s))), Buffer.from(s)]);
const key = (address: string) => Buffer.from(base58.decode(address));
const data = (...parts: Buffer[]) => Uint8Array.from(Buffer.concat(parts));

export const systemTransfer = (from: string, to: string, lamports: bigint): TestInstruction => ({
  programAddress: SYSTEM_PROGRAM,
  accounts: [
    { address: from, role: 3 },
    { address: to, role: 1 },
  ],
  data: data(u32(2), u64(lamports)),
});

export const createAccount = (from: string, created: string, lamports: bigint, owner = SYSTEM_PROGRAM): TestInstruction => ({
  programAddress: SYSTEM_PROGRAM,
  accounts: [
    { address: from, role: 3 },
    { address: created, role: 3 },
  ],
  data: data(u32(0), u64(lamports), u64(0n), key(owner)),
});

export const createAccountWithSeed = (from: string, created: string, seed: string, lamports: bigint, owner = SYSTEM_PROGRAM): TestInstruction => ({
  programAddress: SYSTEM_PROGRAM,
  accounts: [
    { address: from, role: 3 },
    { address: created, role: 1 },
  ],
  data: data(u32(3), key(from), str(seed), u64(lamports), u64(0n), key(owner)),
});

/** Moves lamports out of the account derived from `base` and `seed` (base signs) to `to`. */
export const transferWithSeed = (derived: string, base: string, to: string, seed: string, lamports: bigint): TestInstruction => ({
  programAddress: SYSTEM_PROGRAM,
  accounts: [
    { address: derived, role: 1 },
    { address: base, role: 2 },
    { address: to, role: 1 },
  ],
  data: data(u32(11), u64(lamports), str(seed), key(SYSTEM_PROGRAM)),
});

/** SPL Token Transfer (instruction 3): `amount` base units from one token account to another, signed by the owner. */
export const splTransfer = (source: string, destination: string, owner: string, amount: bigint): TestInstruction => ({
  programAddress: TOKEN_PROGRAM,
  accounts: [
    { address: source, role: 1 },
    { address: destination, role: 1 },
    { address: owner, role: 2 },
  ],
  data: data(Buffer.from([3]), u64(amount)),
});
