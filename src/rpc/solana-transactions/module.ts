import type { ConnectRouter } from "@connectrpc/connect";
import {
  SdkSolanaTransactionsService,
  file_sigil_solana_transactions_v0_sdk_solana_transactions_service,
} from "../../gen/sigil/solana_transactions/v0/sdk_solana_transactions_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { optimizeSolanaTransaction } from "../../domain/solana-transactions/optimize.js";
import { simulateSolanaTransactions } from "../../domain/solana-transactions/simulate.js";
import type { ApiModule } from "../module.js";
import { toAssetDiff } from "../simulations/messages.js";
import { publicEnvironmentOf } from "../tenant-context.js";

function register(router: ConnectRouter, deps: Deps) {
  router.service(SdkSolanaTransactionsService, {
    async simulateSvmTransaction(req, ctx) {
      const r = await simulateSolanaTransactions(deps, publicEnvironmentOf(ctx), { chain: req.chain, transactions: req.transactions, accountAddress: req.accountAddress });
      return {
        ...r,
        inAssets: r.inAssets.map(toAssetDiff),
        outAssets: r.outAssets.map(toAssetDiff),
        simulations: r.simulations.map((s) => ({
          logs: s.logs,
          error: s.error,
          unitsConsumed: s.unitsConsumed === null ? undefined : BigInt(s.unitsConsumed),
          fee: s.fee === null ? undefined : s.fee,
        })),
      };
    },
    async optimizeTransaction(req, ctx) {
      const { transaction } = await optimizeSolanaTransaction(deps, publicEnvironmentOf(ctx), { transaction: req.transaction, address: req.address });
      return { transaction };
    },
  });
}

/** Solana transactions before signing: what they do (simulation) and their compute budget (optimization). */
export const solanaTransactionsModule: ApiModule = {
  services: [SdkSolanaTransactionsService],
  files: [file_sigil_solana_transactions_v0_sdk_solana_transactions_service],
  register,
};
