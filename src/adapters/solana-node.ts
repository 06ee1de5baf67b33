import { address, createSolanaRpcFromTransport, type Address, type RpcTransport } from "@solana/kit";
import type { SolanaNode, SplHolding } from "../domain/chains/nodes.js";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";
import { parseJsonWithBigInts } from "./json-bigints.js";

const TOKEN_PROGRAMS = ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"] as const;

const stringify = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? Number(v) : v));

/**
 * A Solana node through @solana/kit's RPC client over our own transport (`post`: pinned connections, the
 * deadline, a bounded answer; src/adapters/chain-http.ts), parsing large integers as bigints as kit's own
 * transport does.
 */
export function createSolanaNode(post: ChainPost): SolanaNode {
  const transport: RpcTransport = async ({ payload, signal }) => parseJsonWithBigInts(await post(stringify(payload), signal)) as never;
  const rpc = createSolanaRpcFromTransport(transport);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw asChainError(err);
    }
  };
  return {
    lamports: (owner) => call(async () => (await rpc.getBalance(address(owner)).send()).value),
    async splHoldings(owner) {
      const byProgram = await call(() =>
        Promise.all(
          TOKEN_PROGRAMS.map((programId) =>
            rpc.getTokenAccountsByOwner(address(owner), { programId: programId as Address }, { encoding: "jsonParsed" }).send(),
          ),
        ),
      );
      const sums = new Map<string, SplHolding>();
      for (const { value } of byProgram) {
        for (const { account } of value) {
          const info = account.data.parsed.info;
          const held = sums.get(info.mint) ?? { mint: info.mint, amount: 0n, decimals: info.tokenAmount.decimals };
          held.amount += BigInt(info.tokenAmount.amount);
          sums.set(info.mint, held);
        }
      }
      return [...sums.values()];
    },
  };
}
