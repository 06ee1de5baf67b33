/**
 * `npm run dev:chains`: the local chains the tests use, for trying the chain-facing features by hand. Both
 * run in this process, offline, on loopback, until Ctrl-C:
 *   - EVM: Hardhat's network (EDR) on http://127.0.0.1:8545 (EVM_PORT), chain id 31337, ten funded dev
 *     accounts (Hardhat's well-known mnemonic: never use them anywhere real) and the test contracts
 *     (an ERC-20, an ERC-721, an ERC-1155, an ERC-1271 smart account and its CREATE2 factory, the ERC-4337
 *     EntryPoint 0.8 with a SimpleAccountFactory), at the same addresses on every start;
 *   - Solana: LiteSVM behind a JSON-RPC server on http://127.0.0.1:8899 (SOLANA_PORT), with requestAirdrop.
 * It prints the RPC URLs, accounts and contract addresses as JSON.
 *
 *   EVM_PORT=8545 SOLANA_PORT=8899 npm run dev:chains
 */
import { startEvmChain } from "../test/e2e/support/evm-chain.js";
import { startSolanaChain } from "../test/e2e/support/solana-chain.js";

const evm = await startEvmChain({ port: Number(process.env.EVM_PORT ?? 8545) });
const solana = await startSolanaChain({ port: Number(process.env.SOLANA_PORT ?? 8899) });
console.log(
  JSON.stringify(
    {
      evm: { rpcUrl: evm.rpcUrl, chainId: evm.chainId, accounts: evm.accounts.slice(0, 3), contracts: evm.contracts },
      solana: { rpcUrl: solana.rpcUrl },
    },
    null,
    2,
  ),
);
console.log("Local chains are running; Ctrl-C stops them.");

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled([evm.close(), solana.close()]);
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
