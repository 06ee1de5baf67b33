import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AccountRole,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  getSignatureFromTransaction,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { RpcError, TOKEN_PROGRAM, describeError, toJson } from "./solana-json.js";
import { Ledger, decodeTransaction } from "./solana-ledger.js";
import { type Method, solanaMethods } from "./solana-rpc-methods.js";

/**
 * A local Solana chain for the tests and for a person: LiteSVM (the Solana VM in process, with the system,
 * SPL Token, Token-2022 and associated-token programs) behind a small JSON-RPC 2.0 server on 127.0.0.1 that
 * speaks the shapes of the Solana JSON-RPC protocol for the methods Sigil calls: getBalance, getAccountInfo,
 * getMultipleAccounts, getTokenAccountsByOwner, getLatestBlockhash, isBlockhashValid, getSlot, getBlockHeight,
 * getMinimumBalanceForRentExemption, getFeeForMessage, getRecentPrioritizationFees, sendTransaction,
 * simulateTransaction, getSignatureStatuses, getSignaturesForAddress, getTransaction, requestAirdrop, getHealth,
 * getVersion; batches too.
 *
 * It is a test peer, not a validator. It does not: produce blocks on a timer (each landed transaction is one
 * new block and is final at once: no forks, no commitment levels, no confirmations); serve WebSocket
 * subscriptions, getBlock or getProgramAccounts; keep a fee market
 * (getRecentPrioritizationFees answers the fees a test set with setPrioritizationFees, else zero for each recent
 * block, as a quiet node does); parse instructions in `jsonParsed` (inner instructions come in the node's form
 * for a program it does not know); parse Token-2022 extensions; answer base64+zstd or loadedAccountsDataSize;
 * accept durable-nonce transactions (only recent blockhashes); limit airdrops; keep its state past close().
 */
export interface SolanaChain {
  rpcUrl: string;
  /** Sends lamports from the chain's faucet, as a transfer that lands like any other; answers its signature. */
  airdrop(address: Address, lamports: bigint): Promise<string>;
  /** A new SPL mint (Token or Token-2022) whose mint authority is the chain's own key. */
  createMint(opts?: { decimals?: number; tokenProgram?: Address }): Promise<Address>;
  /** Mints base units to the owner's associated token account, created when missing; answers that account. */
  mintTo(mint: Address, owner: Address, amount: bigint): Promise<Address>;
  /** The prioritization fees (micro-lamports per compute unit) of the most recent blocks, oldest first. */
  setPrioritizationFees(fees: readonly bigint[]): void;
  close(): Promise<void>;
}

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;
/** The node's largest request body (50 KiB); a larger one is answered 413. */
const MAX_BODY = 50 * 1024;
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

function bytes(...parts: (number | bigint | Address)[][]): Uint8Array {
  const out: number[] = [];
  for (const [kind, value] of parts as [number, number | bigint | Address][]) {
    if (kind === 32) out.push(...getAddressEncoder().encode(value as Address));
    else {
      const chunk = new Uint8Array(kind);
      const view = new DataView(chunk.buffer);
      if (kind === 1) view.setUint8(0, Number(value));
      else if (kind === 4) view.setUint32(0, Number(value), true);
      else view.setBigUint64(0, BigInt(value), true);
      out.push(...chunk);
    }
  }
  return new Uint8Array(out);
}

/** An instruction whose signer accounts carry their signers, for signTransactionMessageWithSigners. */
const instruction = (programAddress: Address, accounts: (AccountMeta | AccountSignerMeta)[], data: Uint8Array) => ({ programAddress, accounts, data }) as Instruction;

/** The system program's Transfer (instruction 2). */
export function transferLamportsInstruction(source: TransactionSigner, destination: Address, amount: bigint): Instruction {
  return instruction(
    SYSTEM_PROGRAM,
    [
      { address: source.address, role: AccountRole.WRITABLE_SIGNER, signer: source },
      { address: destination, role: AccountRole.WRITABLE },
    ],
    bytes([4, 2], [8, amount]),
  );
}

/** The token program's Transfer (instruction 3) between two token accounts of one mint. */
export function transferTokensInstruction(source: Address, destination: Address, owner: TransactionSigner, amount: bigint, tokenProgram = TOKEN_PROGRAM): Instruction {
  return instruction(
    tokenProgram,
    [
      { address: source, role: AccountRole.WRITABLE },
      { address: destination, role: AccountRole.WRITABLE },
      { address: owner.address, role: AccountRole.READONLY_SIGNER, signer: owner },
    ],
    bytes([1, 3], [8, amount]),
  );
}

/** The owner's associated token account for the mint. */
export async function associatedTokenAddress(owner: Address, mint: Address, tokenProgram = TOKEN_PROGRAM): Promise<Address> {
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({ programAddress: ASSOCIATED_TOKEN_PROGRAM, seeds: [encoder.encode(owner), encoder.encode(tokenProgram), encoder.encode(mint)] });
  return pda;
}

export async function startSolanaChain(opts: { port?: number } = {}): Promise<SolanaChain> {
  const ledger = new Ledger();
  const faucet = await generateKeyPairSigner();
  const authority = await generateKeyPairSigner();
  ledger.svm.setAccount({ address: faucet.address, data: new Uint8Array(), executable: false, lamports: lamports(FAUCET_LAMPORTS), programAddress: SYSTEM_PROGRAM, space: 0n });

  /** Signs and runs a transaction of the chain's own keys: its signature, and its error if it failed. */
  async function run(payer: KeyPairSigner, instructions: Instruction[]) {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(ledger.latestBlockhash(), m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const { landed, outcome } = ledger.send(decodeTransaction(getTransactionEncoder().encode(signed) as Uint8Array));
    return { signature: getSignatureFromTransaction(signed) as string, err: outcome.err, logs: outcome.logs, landed: landed !== null };
  }

  /** The helpers' transactions: a failure is a fault of the test that asked, thrown with the program's logs. */
  async function land(payer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
    const { signature, err, logs } = await run(payer, instructions);
    if (err) throw new Error(`local Solana chain: ${describeError(err)}\n${logs.join("\n")}`);
    return signature;
  }

  const airdrop = (to: Address, lamports: bigint) => land(faucet, [transferLamportsInstruction(faucet, to, lamports)]);
  // The chain's authority pays for the mints and token accounts it creates.
  await airdrop(authority.address, 1_000n * 1_000_000_000n);

  // requestAirdrop answers the faucet transaction's signature, as a node does, even when that transaction fails
  // (too few lamports for a new account's rent): its status then carries the error. One that cannot even be
  // paid for is the faucet's own failure.
  const requestAirdrop = async (to: Address, lamports: bigint) => {
    const { signature, err, landed } = await run(faucet, [transferLamportsInstruction(faucet, to, lamports)]);
    if (!landed) throw new RpcError(-32600, `airdrop request failed: ${describeError(err ?? "")}`);
    return signature;
  };

  const methods = solanaMethods(ledger, requestAirdrop);
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/health") return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (req.method !== "POST") return res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) return res.writeHead(413).end();
      chunks.push(chunk);
    }
    const body = await answer(methods, Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(opts.port ?? 0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    airdrop,
    async createMint({ decimals = 9, tokenProgram = TOKEN_PROGRAM } = {}) {
      const mint = await generateKeyPairSigner();
      const rent = ledger.svm.minimumBalanceForRentExemption(82n);
      await land(authority, [
        instruction(
          SYSTEM_PROGRAM,
          [
            { address: authority.address, role: AccountRole.WRITABLE_SIGNER, signer: authority },
            { address: mint.address, role: AccountRole.WRITABLE_SIGNER, signer: mint },
          ],
          bytes([4, 0], [8, rent], [8, 82], [32, tokenProgram]),
        ),
        // InitializeMint2: decimals, the mint authority, no freeze authority.
        instruction(tokenProgram, [{ address: mint.address, role: AccountRole.WRITABLE }], bytes([1, 20], [1, decimals], [32, authority.address], [1, 0])),
      ]);
      return mint.address;
    },
    async mintTo(mint, owner, amount) {
      const tokenProgram = ledger.account(mint)?.programAddress ?? TOKEN_PROGRAM;
      const account = await associatedTokenAddress(owner, mint, tokenProgram);
      await land(authority, [
        // CreateIdempotent (1): a no-op when the account exists.
        instruction(
          ASSOCIATED_TOKEN_PROGRAM,
          [
            { address: authority.address, role: AccountRole.WRITABLE_SIGNER, signer: authority },
            { address: account, role: AccountRole.WRITABLE },
            { address: owner, role: AccountRole.READONLY },
            { address: mint, role: AccountRole.READONLY },
            { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
            { address: tokenProgram, role: AccountRole.READONLY },
          ],
          bytes([1, 1]),
        ),
        // MintTo (7), signed by the mint authority.
        instruction(
          tokenProgram,
          [
            { address: mint, role: AccountRole.WRITABLE },
            { address: account, role: AccountRole.WRITABLE },
            { address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority },
          ],
          bytes([1, 7], [8, amount]),
        ),
      ]);
      return account;
    },
    setPrioritizationFees(fees) {
      ledger.prioritizationFees = [...fees];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** One JSON-RPC 2.0 exchange: a request or a batch in, the response text out (empty for notifications only). */
async function answer(methods: Record<string, Method>, text: string): Promise<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return toJson({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return toJson({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: null });
    const replies = (await Promise.all(parsed.map((r) => call(methods, r)))).filter((r) => r !== null);
    return replies.length ? toJson(replies) : "";
  }
  const reply = await call(methods, parsed);
  return reply ? toJson(reply) : "";
}

async function call(methods: Record<string, Method>, request: unknown): Promise<object | null> {
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
  if (!r || typeof r !== "object" || r.jsonrpc !== "2.0" || typeof r.method !== "string")
    return { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: null };
  const id = r.id ?? null;
  const method = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
  let reply: object;
  if (!method) reply = { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id };
  else if (r.params !== undefined && !Array.isArray(r.params)) reply = { jsonrpc: "2.0", error: { code: -32602, message: "Invalid params: expected an array of parameters" }, id };
  else
    try {
      reply = { jsonrpc: "2.0", result: await method((r.params as unknown[]) ?? []), id };
    } catch (e) {
      // Anything but an RpcError is a fault of this peer: answered as the node's internal error, with its text.
      const error = e instanceof RpcError ? e : new RpcError(-32603, "Internal error", String((e as Error).stack ?? e));
      reply = { jsonrpc: "2.0", error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }, id };
    }
  // A request without an id is a notification: it gets no reply.
  return "id" in r ? reply : null;
}
