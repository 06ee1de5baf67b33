import type { ConnectRouter } from "@connectrpc/connect";
import { BalancesService, file_sigil_balances_v0_balances_service } from "../../gen/sigil/balances/v0/balances_service_pb.js";
import * as balances from "../../domain/balances/service.js";
import type { Deps } from "../../domain/deps.js";
import type { ApiModule } from "../module.js";
import { environmentOf } from "../tenant-context.js";
import { SdkBalancesService, file_sigil_balances_v0_sdk_balances_service } from "../../gen/sigil/balances/v0/sdk_balances_service_pb.js";
import { registerSdkBalances, toBalanceList } from "./sdk-handlers.js";

function register(router: ConnectRouter, deps: Deps) {
  router.service(BalancesService, {
    async getUserAccountBalances(req, ctx) {
      const access = environmentOf(ctx);
      const result = await balances.userAccountBalances(
        deps,
        access,
        req.userId,
        req.balanceRequests.map((b) => ({ address: b.address, chain: b.chain, networkIds: b.networkIds.map(Number), whitelistedContracts: b.whitelistedContracts })),
      );
      return {
        chainBalances: result.map((c) => ({
          walletAddress: c.walletAddress,
          chain: c.chain,
          networks: c.networks.map((n) => ({ networkId: n.networkId, balances: toBalanceList(n.balances) })),
        })),
      };
    },
  });
  registerSdkBalances(router, deps);
}

/** Token balances: of a user's wallets (management), and of any address read from the chain's node (SDK). */
export const balancesModule: ApiModule = {
  services: [BalancesService, SdkBalancesService],
  files: [file_sigil_balances_v0_balances_service, file_sigil_balances_v0_sdk_balances_service],
  register,
};
