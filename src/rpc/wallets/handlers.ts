import type { ConnectRouter } from "@connectrpc/connect";
import { WalletsService } from "../../gen/sigil/wallets/v0/wallets_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { environmentScope } from "../../domain/tenancy/scope.js";
import * as wallets from "../../domain/wallets/service.js";
import { apiCaller } from "../context.js";
import { toWallet } from "./mappers.js";

export function registerWallets(router: ConnectRouter, deps: Deps) {
  router.service(WalletsService, {
    async createWallet(req, ctx) {
      const env = environmentScope(apiCaller(ctx), req.environmentId);
      const w = await wallets.createWallet(deps, env, req.userId, req);
      return { wallet: toWallet(w) };
    },
    async listUserWallets(req, ctx) {
      const list = await wallets.listUserWallets(deps, environmentScope(apiCaller(ctx), req.environmentId), req.userId);
      return { wallets: list.map(toWallet) };
    },
    async getWallet(req, ctx) {
      return { wallet: toWallet(await wallets.getWallet(deps, environmentScope(apiCaller(ctx), req.environmentId), req.walletId)) };
    },
    async deleteWallet(req, ctx) {
      await wallets.deleteWallet(deps, environmentScope(apiCaller(ctx), req.environmentId), req.walletId);
      return {};
    },
    async recoverDeletedWallets(req, ctx) {
      const r = await wallets.recoverWallets(deps, environmentScope(apiCaller(ctx), req.environmentId), req.userId);
      return {
        data: {
          userId: req.userId,
          recoveredWallets: r.wallets,
          recoveredAdditionalAddresses: r.additionalAddresses,
          recoveredCustodyHdWallets: r.custodyHdWallets,
          skippedWalletIds: r.skippedWalletIds,
        },
        message: r.wallets === 0 ? "No deleted wallets to recover" : `Recovered ${r.wallets} wallet(s)`,
      };
    },
  });
}
