import type { ConnectRouter } from "@connectrpc/connect";
import { BalancesService, file_sigil_balances_v0_balances_service } from "../../gen/sigil/balances/v0/balances_service_pb.js";
import * as balances from "../../domain/balances/service.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { environmentOf } from "../tenant-context.js";

function register(router: ConnectRouter, deps: Deps) {
  router.service(BalancesService, {
    async getUserAccountBalances(req, ctx) {
      const access = environmentOf(ctx);
      const result = await balances.userAccountBalances(
        deps,
        access,
        req.userId,
        req.balanceRequests.map((b) => ({ address: b.address, chain: b.chain, networkIds: b.networkIds.map(Number) })),
      );
      return {
        chainBalances: result.map((c) => ({
          walletAddress: c.walletAddress,
          chain: c.chain,
          networks: c.networkIds.map((networkId) => ({ networkId })),
        })),
      };
    },
  });
}

/** Token balances of a user's wallets (which wallets and networks; Sigil knows no amounts). */
export const balancesModule: ApiModule = {
  services: [BalancesService],
  files: [file_sigil_balances_v0_balances_service],
  register,
};
