import type { ConnectRouter } from "@connectrpc/connect";
import { WalletsService } from "../../gen/sigil/wallets/v0/wallets_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as wallets from "../../domain/wallets/service.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { walletDetail, walletView } from "./mappers.js";
import { environmentOf } from "../tenant-context.js";

export function registerWallets(router: ConnectRouter, deps: Deps) {
  router.service(WalletsService, {
    async createWallet(req, ctx) {
      const access = environmentOf(ctx);
      return { wallet: walletView(await wallets.createWallet(deps, access, req.userId, req)) };
    },
    async listUserWallets(req, ctx) {
      const access = environmentOf(ctx);
      const list = (await wallets.listUserWallets(deps, access, req.userId)).map(walletView);
      return { wallets: list, count: list.length };
    },
    async listWallets(req, ctx) {
      const access = environmentOf(ctx);
      const page = pageOf(req);
      const filters = { chain: orNull(req.chain), provider: orNull(req.provider), userId: orNull(req.userId) };
      const { wallets: list, count } = await wallets.listEnvironmentWallets(deps, access, filters, page);
      return { wallets: list.map(walletDetail), count, limit: page.limit, offset: page.offset };
    },
    async getWallet(req, ctx) {
      const access = environmentOf(ctx);
      return { wallet: walletView(await wallets.getWallet(deps, access, req.walletId)) };
    },
    async deleteWallet(req, ctx) {
      const access = environmentOf(ctx);
      await wallets.deleteWallet(deps, access, req.walletId);
      return {};
    },
    async recoverDeletedWallets(req, ctx) {
      const access = environmentOf(ctx);
      const r = await wallets.recoverWallets(deps, access, req.userId);
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
