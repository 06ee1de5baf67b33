import { type Address, type EncodedAccount, getBase58Encoder, getBase64Encoder, getCompiledTransactionMessageDecoder } from "@solana/kit";
import { type Decoded, type Ledger, type Outcome, acceptedMessage, decodeTransaction } from "./solana-ledger.js";
import { type DataEncoding, RpcError, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, accountJson, dataEncoding, describeError, invalidParams, tokenAccountState, toBase58, toBase64 } from "./solana-json.js";

/**
 * The JSON-RPC methods of the local Solana chain: each takes the request's `params` array and answers its
 * `result` as the node does (u64 values as bigint), or throws an RpcError with the node's code.
 */

/** The Agave release whose answers these follow (simulateTransaction with fee and balances is 3.x). */
const SOLANA_CORE = "3.0.0";

type Params = unknown[];
type Config = Record<string, unknown>;
export type Method = (params: Params) => unknown;

const base58 = getBase58Encoder();

function address(params: Params, i: number): Address {
  const value = params[i];
  if (typeof value !== "string") throw invalidParams(value === undefined ? "Invalid params: invalid length, missing a public key" : "Invalid params: invalid type, expected a string");
  let bytes: Uint8Array;
  try {
    bytes = base58.encode(value) as Uint8Array;
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  if (bytes.length !== 32) throw invalidParams("Invalid param: WrongSize");
  return value as Address;
}

/** A transaction signature: 64 bytes, base58. */
function signature(value: unknown): string {
  if (typeof value !== "string") throw invalidParams("Invalid params: invalid type, expected a signature string");
  let bytes: Uint8Array;
  try {
    bytes = base58.encode(value) as Uint8Array;
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  if (bytes.length !== 64) throw invalidParams("Invalid param: WrongSize");
  return value;
}

function config(params: Params, i: number): Config {
  const value = params[i];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalidParams("Invalid params: invalid type, expected a config object");
  return value as Config;
}

function u64(value: unknown, name: string): bigint {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw invalidParams(`Invalid params: ${name} must be an unsigned integer`);
  return BigInt(value);
}

function list(value: unknown, max: number): unknown[] {
  if (!Array.isArray(value)) throw invalidParams("Invalid params: invalid type, expected an array");
  if (value.length > max) throw invalidParams(`Too many inputs provided; max ${max}`);
  return value;
}

function wireBytes(params: Params, cfg: Config): Uint8Array {
  const text = params[0];
  if (typeof text !== "string") throw invalidParams("Invalid params: invalid type, expected an encoded transaction");
  const encoding = cfg.encoding ?? "base58";
  try {
    if (encoding === "base64") return getBase64Encoder().encode(text) as Uint8Array;
    if (encoding === "base58") return base58.encode(text) as Uint8Array;
  } catch {
    throw invalidParams(`invalid ${encoding} encoding`);
  }
  throw invalidParams(`Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
}

export function solanaMethods(ledger: Ledger, airdrop: (to: Address, lamports: bigint) => Promise<string>): Record<string, Method> {
  const withContext = (value: unknown) => ({ context: { apiVersion: SOLANA_CORE, slot: ledger.slot }, value });
  const lookup = (a: Address) => ledger.account(a);
  const checkContextSlot = (cfg: Config) => {
    if (typeof cfg.minContextSlot === "number" && BigInt(cfg.minContextSlot) > ledger.slot)
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: ledger.slot });
  };
  const encodeAccount = (account: EncodedAccount | null, cfg: Config, fallback: DataEncoding) => {
    const slice = cfg.dataSlice as { offset: number; length: number } | undefined;
    return account && accountJson(account, dataEncoding(cfg.encoding, fallback), lookup, slice);
  };

  const simulationValue = (outcome: Outcome, extra: object) => ({
    err: outcome.err,
    logs: outcome.logs,
    accounts: null,
    unitsConsumed: outcome.unitsConsumed,
    returnData: outcome.returnData,
    innerInstructions: null,
    replacementBlockhash: null,
    fee: outcome.fee,
    preBalances: outcome.preBalances,
    postBalances: outcome.postBalances,
    preTokenBalances: outcome.preTokenBalances,
    postTokenBalances: outcome.postTokenBalances,
    loadedAddresses: outcome.loadedAddresses,
    ...extra,
  });

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": SOLANA_CORE, "feature-set": 0 }),
    getSlot: () => ledger.slot,
    getBlockHeight: () => ledger.blockHeight,
    getLatestBlockhash: (p) => (checkContextSlot(config(p, 0)), withContext(ledger.latestBlockhash())),
    isBlockhashValid: (p) => {
      if (typeof p[0] !== "string") throw invalidParams("Invalid params: invalid type, expected a blockhash");
      return withContext(ledger.isBlockhashValid(p[0]));
    },
    getMinimumBalanceForRentExemption: (p) => ledger.svm.minimumBalanceForRentExemption(u64(p[0] ?? 0, "data length")),

    getBalance: (p) => {
      const owner = address(p, 0);
      checkContextSlot(config(p, 1));
      return withContext(ledger.account(owner)?.lamports ?? 0n);
    },
    getAccountInfo: (p) => {
      const key = address(p, 0);
      const cfg = config(p, 1);
      checkContextSlot(cfg);
      return withContext(encodeAccount(ledger.account(key), cfg, "binary"));
    },
    getMultipleAccounts: (p) => {
      const keys = list(p[0], 100).map((_, i) => address(p[0] as Params, i));
      const cfg = config(p, 1);
      checkContextSlot(cfg);
      return withContext(keys.map((k) => encodeAccount(ledger.account(k), cfg, "base64")));
    },
    getTokenAccountsByOwner: (p) => {
      const owner = address(p, 0);
      const filter = config(p, 1);
      const cfg = config(p, 2);
      checkContextSlot(cfg);
      let program: Address;
      let mint: Address | null = null;
      if (typeof filter.mint === "string") {
        mint = address([filter.mint], 0);
        const found = ledger.account(mint);
        if (!found) throw invalidParams("Invalid param: could not find mint");
        program = found.programAddress;
      } else if (typeof filter.programId === "string") program = address([filter.programId], 0);
      else throw invalidParams("Invalid params: expected a filter object with mint or programId");
      if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) throw invalidParams("Invalid param: unrecognized Token program id");
      const owned = ledger.svm.getProgramAccounts(program).filter((a) => {
        const state = tokenAccountState(a);
        return state && state.owner === owner && (!mint || state.mint === mint);
      });
      return withContext(owned.map((a) => ({ pubkey: a.address, account: encodeAccount(a, cfg, "binary") })));
    },
    getFeeForMessage: (p) => {
      if (typeof p[0] !== "string") throw invalidParams("Invalid params: invalid type, expected a base64 message");
      checkContextSlot(config(p, 1));
      let decoded;
      try {
        decoded = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(p[0]));
      } catch {
        throw invalidParams("invalid base64 encoding");
      }
      const message = acceptedMessage(decoded);
      // A node answers null for a message whose blockhash it no longer knows.
      return withContext(ledger.isBlockhashValid(message.lifetimeToken) ? ledger.fee(message) : null);
    },
    getRecentPrioritizationFees: (p) => {
      // Taken and checked, not used: this chain has no fee market, so every account gets the same answer.
      list(p[0] ?? [], 128).forEach((_, i) => address(p[0] as Params, i));
      return ledger.recentPrioritizationFees();
    },

    requestAirdrop: async (p) => airdrop(address(p, 0), u64(p[1], "lamports")),
    sendTransaction: (p) => {
      const cfg = config(p, 1);
      checkContextSlot(cfg);
      const decoded = decodeTransaction(wireBytes(p, cfg));
      if (!ledger.signaturesVerify(decoded)) throw new RpcError(-32003, "Transaction signature verification failure");
      if (cfg.skipPreflight !== true) {
        const preflight = ledger.simulate(decoded);
        if (preflight.err) throw new RpcError(-32002, `Transaction simulation failed: ${describeError(preflight.err)}`, simulationValue(preflight, {}));
      }
      ledger.send(decoded);
      // The node answers the signature even when the transaction then fails or never lands.
      return toBase58(Object.values(decoded.transaction.signatures)[0] ?? new Uint8Array(64));
    },
    simulateTransaction: (p) => {
      const cfg = config(p, 1);
      checkContextSlot(cfg);
      if (cfg.sigVerify === true && cfg.replaceRecentBlockhash === true) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      let decoded: Decoded = decodeTransaction(wireBytes(p, cfg));
      if (cfg.sigVerify === true && !ledger.signaturesVerify(decoded)) throw new RpcError(-32003, "Transaction signature verification failure");
      if (cfg.replaceRecentBlockhash === true) decoded = ledger.withLatestBlockhash(decoded);
      const outcome = ledger.simulate(decoded);
      const extra: Record<string, unknown> = {};
      if (cfg.replaceRecentBlockhash === true) extra.replacementBlockhash = ledger.latestBlockhash();
      if (cfg.accounts !== undefined && cfg.accounts !== null) {
        const accounts = config([cfg.accounts], 0);
        const addresses = list(accounts.addresses, outcome.keys.length).map((_, i) => address(accounts.addresses as Params, i));
        if (accounts.encoding === "binary" || accounts.encoding === "base58") throw invalidParams("base58 encoding not supported");
        // The node answers the post-simulation state of the transaction's own accounts, and null when it failed.
        extra.accounts = addresses.map((a) => (outcome.err || !outcome.keys.includes(a) ? null : encodeAccount(outcome.after(a), accounts, "base64")));
      }
      if (cfg.innerInstructions === true)
        // A node parses the instructions of the programs it knows (system, token): this chain answers each
        // one in the node's form for a program it does not know.
        extra.innerInstructions = outcome.innerInstructions.map(({ index, instructions }) => ({
          index,
          instructions: instructions.map((ix) => ({ programId: outcome.keys[ix.programIdIndex], accounts: ix.accounts.map((a) => outcome.keys[a]), data: ix.data, stackHeight: ix.stackHeight })),
        }));
      return withContext(simulationValue(outcome, extra));
    },
    getSignatureStatuses: (p) => {
      const signatures = list(p[0], 256).map(signature);
      return withContext(
        signatures.map((s) => {
          const landed = ledger.landed.get(s);
          if (!landed) return null;
          // Every landed transaction is final at once: this chain has one node and no forks.
          return { slot: landed.slot, confirmations: null, err: landed.err, status: landed.err ? { Err: landed.err } : { Ok: null }, confirmationStatus: "finalized" };
        }),
      );
    },
    getSignaturesForAddress: (p) => {
      const key = address(p, 0);
      const cfg = config(p, 1);
      checkContextSlot(cfg);
      const limit = cfg.limit === undefined ? 1000 : Number(u64(cfg.limit, "limit"));
      if (limit < 1 || limit > 1000) throw invalidParams("Invalid limit; max 1000");
      const before = cfg.before === undefined ? undefined : signature(cfg.before);
      const until = cfg.until === undefined ? undefined : signature(cfg.until);
      // Newest first, as a node answers: each landed transaction is its own (later) block.
      const mentioning = [...ledger.landed.values()].filter((l) => l.keys.includes(key)).reverse();
      let start = 0;
      if (before !== undefined) {
        const at = mentioning.findIndex((l) => l.signature === before);
        start = at < 0 ? mentioning.length : at + 1;
      }
      const out = [];
      for (const l of mentioning.slice(start)) {
        if (l.signature === until || out.length === limit) break;
        out.push({ signature: l.signature, slot: l.slot, err: l.err, memo: null, blockTime: l.blockTime, confirmationStatus: "finalized" });
      }
      return out;
    },
    getTransaction: (p) => {
      const key = signature(p[0]);
      const cfg = typeof p[1] === "string" ? { encoding: p[1] } : config(p, 1);
      const landed = ledger.landed.get(key);
      if (!landed) return null;
      const { message, wire, transaction } = landed.decoded;
      const version = message.version;
      if (version !== "legacy" && (typeof cfg.maxSupportedTransactionVersion !== "number" || cfg.maxSupportedTransactionVersion < version))
        throw new RpcError(
          -32015,
          `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
        );
      const encoding = cfg.encoding ?? "json";
      let encoded: unknown;
      if (encoding === "base64") encoded = [toBase64(wire), "base64"];
      else if (encoding === "base58") encoded = [toBase58(wire), "base58"];
      else if (encoding === "json")
        encoded = {
          signatures: Object.values(transaction.signatures).map((s) => toBase58(s ?? new Uint8Array(64))),
          message: {
            accountKeys: message.staticAccounts,
            header: message.header,
            recentBlockhash: message.lifetimeToken,
            instructions: message.instructions.map((ix) => ({ programIdIndex: ix.programAddressIndex, accounts: ix.accountIndices ?? [], data: toBase58(ix.data as Uint8Array ?? new Uint8Array()), stackHeight: null })),
            ...("addressTableLookups" in message && message.addressTableLookups ? { addressTableLookups: message.addressTableLookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) } : {}),
          },
        };
      else throw invalidParams(`Invalid params: encoding ${String(encoding)} is not answered by this test chain (json, base58, base64)`);
      return {
        slot: landed.slot,
        blockTime: landed.blockTime,
        version,
        transaction: encoded,
        meta: {
          err: landed.err,
          status: landed.err ? { Err: landed.err } : { Ok: null },
          fee: landed.fee,
          preBalances: landed.preBalances,
          postBalances: landed.postBalances,
          innerInstructions: landed.innerInstructions,
          logMessages: landed.logs,
          preTokenBalances: landed.preTokenBalances,
          postTokenBalances: landed.postTokenBalances,
          rewards: [],
          loadedAddresses: landed.loadedAddresses,
          computeUnitsConsumed: landed.unitsConsumed,
          ...(landed.returnData ? { returnData: landed.returnData } : {}),
        },
      };
    },
  };
}
