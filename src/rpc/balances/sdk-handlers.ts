import type { ConnectRouter } from "@connectrpc/connect";
import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import { SdkBalancesService } from "../../gen/sigil/balances/v0/sdk_balances_service_pb.js";
import { accountBalances, type TokenBalance } from "../../domain/balances/account.js";
import { multichainBalances } from "../../domain/balances/multichain.js";
import type { Deps } from "../../domain/deps.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** The published client's JSON of a holding: base units as a JSON number, as it reads them. */
const tokenBalanceJson = (b: TokenBalance) => ({ ...b, rawBalance: Number(b.rawBalance) });

/** The message (sigil.balances.v0.TokenBalance) of a holding: the JSON above, its logo field's local name logoUri. */
const toTokenBalance = (b: TokenBalance) => {
  const { logoURI, ...json } = tokenBalanceJson(b);
  return { ...json, logoUri: logoURI };
};

/** A network's balances as the list that keeps absence (unknown) apart from empty (holds nothing), in JSON form. */
export const toBalanceList = (balances: TokenBalance[] | undefined) =>
  balances ? fromJson(ListValueSchema, balances.map((b) => tokenBalanceJson(b) as unknown as JsonObject)) : undefined;

export function registerSdkBalances(router: ConnectRouter, deps: Deps) {
  router.service(SdkBalancesService, {
    async getAccountBalances(req, ctx) {
      const { balances } = await accountBalances(deps, publicEnvironmentOf(ctx), {
        chainName: req.chainName,
        accountAddress: req.accountAddress,
        networkId: req.networkId === undefined ? undefined : Number(req.networkId),
        includeNative: req.includeNative,
        whitelistedContracts: req.whitelistedContracts,
        forceRefresh: req.forceRefresh,
      });
      return { balances: balances.map(toTokenBalance) };
    },
    async postMultichainAccountBalances(req, ctx) {
      const result = await multichainBalances(
        deps,
        publicEnvironmentOf(ctx),
        req.balanceRequests.map((b) => ({ address: b.address, chain: b.chain, networkIds: b.networkIds.map(Number), whitelistedContracts: b.whitelistedContracts })),
      );
      return {
        chainBalances: result.map((c) => ({ ...c, networks: c.networks.map((n) => ({ networkId: n.networkId, balances: toBalanceList(n.balances) })) })),
      };
    },
  });
}
