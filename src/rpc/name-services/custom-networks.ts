import type { ConnectRouter } from "@connectrpc/connect";
import { badRequest } from "../../errors.js";
import { CustomNetworksService } from "../../gen/sigil/networks/v0/custom_networks_service_pb.js";
import type { NativeCurrency } from "../../gen/sigil/networks/v0/custom_networks_pb.js";
import type { CustomNetworkRecord } from "../../db/repositories/custom-networks.js";
import type { Deps } from "../../domain/deps.js";
import * as networks from "../../domain/custom-networks/service.js";
import type { CustomNetworkInput } from "../../domain/custom-networks/service.js";
import { organizationAccess } from "../../domain/tenancy/access.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";

function toNetwork(n: CustomNetworkRecord) {
  return {
    id: n.id,
    organizationId: n.organizationId,
    name: n.name,
    chainId: BigInt(n.chainId),
    rpcUrls: n.rpcUrls,
    blockExplorerUrls: n.blockExplorerUrls,
    nativeCurrency: n.nativeCurrency,
    iconUrl: str(n.iconUrl),
    testnet: n.testnet,
    createdAt: ts(n.createdAt),
    updatedAt: ts(n.updatedAt),
  };
}

interface NetworkRequest {
  name: string;
  chainId: bigint;
  rpcUrls: string[];
  blockExplorerUrls: string[];
  nativeCurrency?: NativeCurrency;
  iconUrl: string;
  testnet: boolean;
}

function inputOf(req: NetworkRequest): CustomNetworkInput {
  // int64 arrives as bigint; beyond 2^53 it could not round-trip through JSON numbers, so it is refused.
  if (req.chainId <= 0n || req.chainId > BigInt(Number.MAX_SAFE_INTEGER))
    throw badRequest("invalid_chain_id", "chainId must be a positive integer", { field: "chainId" });
  const c = req.nativeCurrency!; // required: checked by the validation interceptor
  return {
    name: req.name,
    chainId: Number(req.chainId),
    rpcUrls: req.rpcUrls,
    blockExplorerUrls: req.blockExplorerUrls,
    nativeCurrency: { name: c.name, symbol: c.symbol, decimals: c.decimals },
    iconUrl: orNull(req.iconUrl),
    testnet: req.testnet,
  };
}

export function registerCustomNetworks(router: ConnectRouter, deps: Deps) {
  const view = (n: CustomNetworkRecord) => ({ customNetwork: toNetwork(n) });
  router.service(CustomNetworksService, {
    async listCustomNetworks(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      const { networks: list, count } = await networks.listNetworks(deps, access, pageOf(req));
      return { customNetworks: list.map(toNetwork), count };
    },
    async createCustomNetwork(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return view(await networks.createNetwork(deps, access, inputOf(req)));
    },
    async getCustomNetwork(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return view(await networks.getNetwork(deps, access, req.networkId));
    },
    async updateCustomNetwork(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return view(await networks.updateNetwork(deps, access, req.networkId, inputOf(req)));
    },
    async deleteCustomNetwork(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      await networks.deleteNetwork(deps, access, req.networkId);
      return {};
    },
  });
}
