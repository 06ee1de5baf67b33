import type { ConnectRouter } from "@connectrpc/connect";
import { WalletsService } from "../../gen/sigil/wallets/v0/wallets_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { environmentAccess, resourceEnvironmentAccess, type CallContext } from "../../domain/tenancy/access.js";
import * as wallets from "../../domain/wallets/service.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { walletDetail, walletView } from "./mappers.js";

/**
 * The environment of a call. The deprecated short paths carry no environment id: the environment of the
 * resource they name applies (an environment token's own; for an account token, the row's).
 */
function accessFor(deps: Deps, ctx: CallContext, environmentId: string, table: "wallets" | "users", id: string) {
  return environmentId ? environmentAccess(deps, ctx, environmentId) : resourceEnvironmentAccess(deps, ctx, table, id);
}

export function registerWallets(router: ConnectRouter, deps: Deps) {
  router.service(WalletsService, {
    async createWallet(req, ctx) {
      const access = await accessFor(deps, ctx, req.environmentId, "users", req.userId);
      return { wallet: walletView(await wallets.createWallet(deps, access, req.userId, req)) };
    },
    async listUserWallets(req, ctx) {
      const access = await accessFor(deps, ctx, req.environmentId, "users", req.userId);
      const list = (await wallets.listUserWallets(deps, access, req.userId)).map(walletView);
      return { wallets: list, count: list.length };
    },
    async listWallets(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const page = pageOf(req);
      const filters = { chain: orNull(req.chain), provider: orNull(req.provider), userId: orNull(req.userId) };
      const { wallets: list, count } = await wallets.listEnvironmentWallets(deps, access, filters, page);
      return { wallets: list.map(walletDetail), count, limit: page.limit, offset: page.offset };
    },
    async getWallet(req, ctx) {
      const access = await accessFor(deps, ctx, req.environmentId, "wallets", req.walletId);
      return { wallet: walletView(await wallets.getWallet(deps, access, req.walletId)) };
    },
    async deleteWallet(req, ctx) {
      const access = await accessFor(deps, ctx, req.environmentId, "wallets", req.walletId);
      await wallets.deleteWallet(deps, access, req.walletId);
      return {};
    },
    async recoverDeletedWallets(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
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
