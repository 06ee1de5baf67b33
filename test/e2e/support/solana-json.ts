import { type Address, type EncodedAccount, type ReadonlyUint8Array, getAddressDecoder, getBase58Decoder, getBase64Decoder } from "@solana/kit";
import type { FailedTransactionMetadata } from "litesvm";

/**
 * How the local Solana chain (solana-chain.ts) writes what LiteSVM holds in the shapes of the Solana JSON-RPC
 * protocol: accounts in each data encoding, SPL token accounts and mints as `jsonParsed`, token balances, and
 * transaction errors as the node serializes them (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`).
 */

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address;
const tokenPrograms: Record<string, string> = { [TOKEN_PROGRAM]: "spl-token", [TOKEN_2022_PROGRAM]: "spl-token-2022" };

/** Every account answers u64::MAX as its rent epoch, as a node does since rent collection ended. */
const RENT_EXEMPT_EPOCH = 18446744073709551615n;

/** A JSON-RPC error as the node answers it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string) => new RpcError(-32602, message);

/**
 * JSON text with u64 values (bigint) written as plain numbers, as the node writes them: JSON.stringify cannot,
 * and a client such as @solana/kit parses large integers back into bigints.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `\u0000${v}\u0000` : v)).replace(/"\\u0000(\d+)\\u0000"/g, "$1");
}

const base58 = getBase58Decoder();
const base64 = getBase64Decoder();
const addressDecoder = getAddressDecoder();

export const addressAt = (bytes: ReadonlyUint8Array, offset: number) => addressDecoder.decode(bytes.subarray(offset, offset + 32));
export const toBase58 = (bytes: ReadonlyUint8Array) => base58.decode(bytes);
export const toBase64 = (bytes: ReadonlyUint8Array) => base64.decode(bytes);

export type DataEncoding = "binary" | "base58" | "base64" | "jsonParsed";

export function dataEncoding(raw: unknown, fallback: DataEncoding): DataEncoding {
  if (raw === undefined || raw === null) return fallback;
  if (raw === "binary" || raw === "base58" || raw === "base64" || raw === "jsonParsed") return raw;
  // base64+zstd needs a zstd encoder, which Node 20 does not have: said plainly rather than answered wrongly.
  throw invalidParams(`Invalid params: unsupported encoding ${String(raw)} (this test chain answers base58, base64 and jsonParsed)`);
}

/** An account as `getAccountInfo` writes it: `lookup` reads a mint (the decimals of a token account's amount). */
export function accountJson(account: EncodedAccount, encoding: DataEncoding, lookup: (a: Address) => EncodedAccount | null, slice?: { offset: number; length: number }) {
  const base = { executable: account.executable, lamports: account.lamports, owner: account.programAddress, rentEpoch: RENT_EXEMPT_EPOCH, space: BigInt(account.data.length) };
  const bytes = slice ? account.data.slice(slice.offset, slice.offset + slice.length) : account.data;
  if (encoding === "jsonParsed" && !slice) {
    const parsed = parseTokenState(account, lookup);
    // A node answers base64 for data it cannot parse, so a client always gets the bytes.
    if (parsed) return { ...base, data: { program: tokenPrograms[account.programAddress], parsed, space: BigInt(account.data.length) } };
  }
  if (encoding === "binary") {
    if (bytes.length > 128) throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
    return { ...base, data: toBase58(bytes) };
  }
  return { ...base, data: encoding === "base58" ? [toBase58(bytes), "base58"] : [toBase64(bytes), "base64"] };
}

const u64 = (b: ReadonlyUint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getBigUint64(at, true);
const optionalAddress = (b: ReadonlyUint8Array, at: number) => (new DataView(b.buffer, b.byteOffset).getUint32(at, true) === 1 ? addressAt(b, at + 4) : null);

/** The base state of a token account (165 bytes) or a mint (82 bytes); Token-2022 extensions are not parsed. */
function tokenKind(account: EncodedAccount): "account" | "mint" | null {
  if (!tokenPrograms[account.programAddress]) return null;
  const n = account.data.length;
  if (n === 82) return "mint";
  if (n === 165) return "account";
  // Token-2022 pads a mint with extensions to 165 bytes and writes the account type after the base state.
  if (n > 165 && account.programAddress === TOKEN_2022_PROGRAM) return account.data[165] === 1 ? "mint" : account.data[165] === 2 ? "account" : null;
  return null;
}

export function mintState(account: EncodedAccount) {
  if (tokenKind(account) !== "mint") return null;
  const d = account.data;
  return { mintAuthority: optionalAddress(d, 0), supply: u64(d, 36), decimals: d[44]!, isInitialized: d[45] === 1, freezeAuthority: optionalAddress(d, 46) };
}

export function tokenAccountState(account: EncodedAccount) {
  if (tokenKind(account) !== "account") return null;
  const d = account.data;
  const native = new DataView(d.buffer, d.byteOffset).getUint32(109, true) === 1 ? u64(d, 113) : null;
  return {
    mint: addressAt(d, 0),
    owner: addressAt(d, 32),
    amount: u64(d, 64),
    delegate: optionalAddress(d, 72),
    state: (["uninitialized", "initialized", "frozen"] as const)[d[108]!] ?? "uninitialized",
    rentExemptReserve: native,
    delegatedAmount: u64(d, 121),
    closeAuthority: optionalAddress(d, 129),
  };
}

/** `{amount, decimals, uiAmount, uiAmountString}` as the node writes a token amount. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const scale = 10n ** BigInt(decimals);
  const fraction = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  const uiAmountString = fraction ? `${amount / scale}.${fraction}` : `${amount / scale}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function parseTokenState(account: EncodedAccount, lookup: (a: Address) => EncodedAccount | null) {
  const mint = mintState(account);
  if (mint) return { type: "mint", info: { ...mint, supply: mint.supply.toString() } };
  const state = tokenAccountState(account);
  const mintAccount = state && lookup(state.mint);
  const decimals = mintAccount && mintState(mintAccount)?.decimals;
  if (!state || decimals === undefined || decimals === null) return null;
  const info: Record<string, unknown> = { isNative: state.rentExemptReserve !== null, mint: state.mint, owner: state.owner, state: state.state, tokenAmount: uiTokenAmount(state.amount, decimals) };
  // The node leaves out the optional fields that are unset.
  if (state.delegate) Object.assign(info, { delegate: state.delegate, delegatedAmount: uiTokenAmount(state.delegatedAmount, decimals) });
  if (state.closeAuthority) info.closeAuthority = state.closeAuthority;
  if (state.rentExemptReserve !== null) info.rentExemptReserve = uiTokenAmount(state.rentExemptReserve, decimals);
  return { type: "account", info };
}

/** A token account's entry in `preTokenBalances` / `postTokenBalances`, or null for any other account. */
export function tokenBalance(accountIndex: number, account: EncodedAccount | null, lookup: (a: Address) => EncodedAccount | null) {
  const state = account && tokenAccountState(account);
  const mintAccount = state && lookup(state.mint);
  const decimals = mintAccount && mintState(mintAccount)?.decimals;
  if (!state || decimals === undefined || decimals === null) return null;
  return { accountIndex, mint: state.mint, owner: state.owner, programId: account.programAddress, uiTokenAmount: uiTokenAmount(state.amount, decimals) };
}

/**
 * The names of LiteSVM's numbered error variants, in the order of its `TransactionErrorFieldless` and
 * `InstructionErrorFieldless` (litesvm/dist/internal.d.ts): they are const enums, with no names at run time.
 */
const transactionErrorNames = (
  "AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed " +
  "BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure " +
  "ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount " +
  "WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound " +
  "InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount " +
  "WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded " +
  "InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled"
).split(" ");
const instructionErrorNames = (
  "GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId " +
  "MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId " +
  "ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex " +
  "ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed " +
  "AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange " +
  "ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds " +
  "InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete " +
  "ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar " +
  "IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded " +
  "BuiltinProgramsMustConsumeComputeUnits BorshIoError"
).split(" ");

export type TransactionError = string | Record<string, unknown>;

/** A LiteSVM failure as the node serializes its TransactionError. */
export function transactionError(failed: FailedTransactionMetadata): TransactionError {
  const err = failed.err();
  if (typeof err === "number") return transactionErrorNames[err] ?? `TransactionError${err}`;
  if ("err" in err) {
    const inner = err.err();
    const detail = typeof inner === "number" ? (instructionErrorNames[inner] ?? `InstructionError${inner}`) : "code" in inner ? { Custom: inner.code } : { BorshIoError: inner.msg };
    return { InstructionError: [err.index, detail] };
  }
  if ("accountIndex" in err) return { [err.constructor.name.replace(/^TransactionError/, "")]: { account_index: err.accountIndex } };
  return { DuplicateInstruction: err.index };
}

/** The node's text for the common errors (its Display), in a preflight failure's message. */
export function describeError(err: TransactionError): string {
  const known: Record<string, string> = {
    AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
    AlreadyProcessed: "This transaction has already been processed",
    BlockhashNotFound: "Blockhash not found",
    InsufficientFundsForFee: "Insufficient funds for fee",
    SignatureFailure: "Transaction did not pass signature verification",
  };
  if (typeof err === "string") return known[err] ?? err;
  const [index, detail] = (err.InstructionError as [number, unknown] | undefined) ?? [];
  if (index !== undefined) {
    const text = typeof detail === "object" && detail && "Custom" in detail ? `custom program error: 0x${(detail.Custom as number).toString(16)}` : String(detail);
    return `Error processing Instruction ${index}: ${text}`;
  }
  return JSON.stringify(err);
}
