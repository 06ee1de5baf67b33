/**
 * What a Solana transaction moves, read from its compiled message for the WaaS policy: the lamports each
 * instruction the service understands sends, to whom, and whether anything else is in it. Understood:
 * - System Program: Transfer, CreateAccount, CreateAccountWithSeed, TransferWithSeed and WithdrawNonceAccount
 *   (each sends lamports to one account), AdvanceNonceAccount (moves nothing);
 * - Compute Budget: the priority fee a transaction sets (unit price x unit limit) is lamports it spends;
 *   heap and data-size requests move nothing;
 * - Memo: moves nothing.
 * Everything else (SPL tokens, Assign, any other program) may move or hand over value the service cannot
 * name: the transaction is then marked unknown in recipient and value, and only an allow rule without
 * addresses or a limit can match it (src/domain/waas/policy.ts).
 */

/** The parts of a compiled legacy or v0 message read here. */
interface CompiledInstructions {
  staticAccounts: readonly string[];
  instructions: readonly { programAddressIndex: number; accountIndices?: readonly number[]; data?: ArrayLike<number> }[];
}

export interface SolanaMoves {
  /** Accounts that receive lamports, in instruction order, without repeats. */
  recipients: string[];
  /** Lamports the transaction sends and spends on its priority fee. */
  lamports: bigint;
  unknownRecipients: boolean;
  unknownValue: boolean;
}

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const MEMO_PROGRAMS = new Set(["MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr", "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"]);

/** The most compute units a transaction may ask for: the bound of a priority fee when no limit is set. */
const MAX_COMPUTE_UNITS = 1_400_000n;

/** System instructions (u32 LE discriminant, bincode fields) that send lamports: where the amount and the recipient are. */
const SYSTEM_MOVES: Record<number, { lamportsAt: (d: Buffer) => number; recipient: number }> = {
  0: { lamportsAt: () => 4, recipient: 1 }, // CreateAccount { lamports, space, owner }: [funding, new]
  2: { lamportsAt: () => 4, recipient: 1 }, // Transfer { lamports }: [from, to]
  // CreateAccountWithSeed { base, seed: String (u64 length + bytes), lamports, space, owner }: [funding, created, base?]
  3: { lamportsAt: (d) => 4 + 32 + 8 + Number(d.readBigUInt64LE(36)), recipient: 1 },
  5: { lamportsAt: () => 4, recipient: 1 }, // WithdrawNonceAccount(lamports): [nonce, recipient, ...]
  11: { lamportsAt: () => 4, recipient: 2 }, // TransferWithSeed { lamports, from_seed, from_owner }: [from, base, to]
};
const ADVANCE_NONCE_ACCOUNT = 4;

export function solanaMovesOf(message: CompiledInstructions): SolanaMoves {
  const accounts = message.staticAccounts.map(String);
  const recipients = new Set<string>();
  let lamports = 0n;
  let unknown = false;
  let unknownRecipient = false;
  let unitPrice = 0n;
  let unitLimit = MAX_COMPUTE_UNITS;
  for (const ix of message.instructions) {
    const program = accounts[ix.programAddressIndex];
    const data = Buffer.from(Uint8Array.from(ix.data ?? []));
    try {
      if (program === SYSTEM_PROGRAM) {
        const kind = data.readUInt32LE(0);
        if (kind === ADVANCE_NONCE_ACCOUNT) continue;
        const move = SYSTEM_MOVES[kind];
        if (!move) {
          unknown = true;
          continue;
        }
        lamports += data.readBigUInt64LE(move.lamportsAt(data));
        // An account of a lookup table has no static address: the recipient is not known.
        const to = accounts[ix.accountIndices?.[move.recipient] ?? -1];
        if (to === undefined) unknownRecipient = true;
        else recipients.add(to);
      } else if (program === COMPUTE_BUDGET_PROGRAM) {
        const kind = data.readUInt8(0);
        if (kind === 2) unitLimit = BigInt(Math.min(data.readUInt32LE(1), Number(MAX_COMPUTE_UNITS))); // SetComputeUnitLimit(u32)
        else if (kind === 3) unitPrice = data.readBigUInt64LE(1); // SetComputeUnitPrice(u64 micro-lamports)
        else if (kind !== 1 && kind !== 4) unknown = true; // RequestHeapFrame, SetLoadedAccountsDataSizeLimit move nothing
      } else if (!program || !MEMO_PROGRAMS.has(program)) {
        unknown = true;
      }
    } catch {
      unknown = true; // data too short for its instruction: not something the service can read
    }
  }
  // Micro-lamports per unit, rounded up as the fee is.
  const fee = (unitPrice * unitLimit + 999_999n) / 1_000_000n;
  return { recipients: [...recipients], lamports: lamports + fee, unknownRecipients: unknown || unknownRecipient, unknownValue: unknown };
}
