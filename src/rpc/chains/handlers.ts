import type { ConnectRouter } from "@connectrpc/connect";
import { ChainsService } from "../../gen/sigil/chains/v0/chains_service_pb.js";
import { tokensOfChain } from "../../domain/chains/tokens.js";
import { badRequest } from "../../errors.js";
import { tokenCaller } from "../context.js";

export function registerChains(router: ConnectRouter) {
  router.service(ChainsService, {
    async getAllTokensByChain(req, ctx) {
      // Not environment-bound: any token (environment or member) with wallets.read reads the same catalogue.
      tokenCaller(ctx);
      if (req.networkId < 0) throw badRequest("invalid_network_id", "networkId must be a positive integer", { field: "networkId" });
      return { tokens: tokensOfChain(req.chainName, req.networkId > 0 ? req.networkId : null) };
    },
  });
}
