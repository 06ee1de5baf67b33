import type { ConnectRouter } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  SdkWalletTransactionsService,
  file_sigil_wallet_transactions_v0_sdk_wallet_transactions_service,
} from "../../gen/sigil/wallet_transactions/v0/sdk_wallet_transactions_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { walletTransactions } from "../../domain/wallet-transactions/service.js";
import type { WalletTransaction } from "../../domain/wallet-transactions/transaction.js";
import type { ApiModule } from "../module.js";
import { publicEnvironmentOf } from "../tenant-context.js";

const toMessage = (t: WalletTransaction) => ({
  transactionHash: t.transactionHash,
  blockNumber: Number(t.blockNumber),
  transactionTimestamp: t.timestamp === null ? undefined : timestampFromMs(t.timestamp * 1000),
  blockHash: t.blockHash,
  blockExplorerUrls: [],
  fromAddress: t.fromAddress,
  toAddress: t.toAddress,
  labels: t.labels,
  assetTransfers: t.assetTransfers.map((a) => ({ tokenAddress: a.tokenAddress, fromAddress: a.fromAddress, toAddress: a.toAddress, amount: a.amount, metadata: a.metadata })),
  chainName: t.chainName,
  networkId: t.networkId,
});

function register(router: ConnectRouter, deps: Deps) {
  router.service(SdkWalletTransactionsService, {
    async getWalletTransactions(req, ctx) {
      const page = await walletTransactions(deps, publicEnvironmentOf(ctx), {
        chainName: req.chainName,
        address: req.address,
        networkId: req.networkId === undefined ? undefined : Number(req.networkId),
        limit: req.limit,
        offset: req.offset || undefined,
      });
      return { transactions: page.transactions.map(toMessage), nextOffset: page.nextOffset };
    },
  });
}

/** An address's recent transactions, read from the chain's node for a signed-in user's app. */
export const walletTransactionsModule: ApiModule = {
  services: [SdkWalletTransactionsService],
  files: [file_sigil_wallet_transactions_v0_sdk_wallet_transactions_service],
  register,
};
