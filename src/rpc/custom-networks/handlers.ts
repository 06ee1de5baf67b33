import type { ConnectRouter } from "@connectrpc/connect";
import { badRequest } from "../../errors.js";
import { CustomNetworksService } from "../../gen/sigil/custom_networks/v0/custom_networks_service_pb.js";
import type { NativeCurrency } from "../../gen/sigil/custom_networks/v0/custom_networks_pb.js";
import type { CustomNetworkRecord } from "../../db/repositories/custom-networks.js";
import type { Deps } from "../../domain/deps.js";
import * as networks from "../../domain/custom-networks/service.js";
import type { CustomNetworkInput } from "../../domain/custom-networks/service.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { organizationOf } from "../tenant-context.js";

function toNetwork(n: CustomNetworkRecord) {
  return {
    id: n.id,
    organizationId: n.organizationId,
    name: n.name,
    chainId: BigInt(n.chainId),
    rpcUrls: n.rpcUrls,
    blockExplorerUrls: n.blockExplorerUrls,
    nativeCurrency: { ...n.nativeCurrency, iconUrl: str(n.nativeCurrency.iconUrl) },
    iconUrl: n.iconUrl ?? "",
    testnet: n.testnet,
    createdAt: ts(n.createdAt),
    updatedAt: ts(n.updatedAt),
    // The published client's flat form.
    networkType: "EVM",
    chainName: n.name,
    rpcUrl: n.rpcUrls[0] ?? "",
    blockExplorerUrl: n.blockExplorerUrls[0] ?? "",
    nativeCurrencyName: n.nativeCurrency.name,
    nativeCurrencySymbol: n.nativeCurrency.symbol,
    nativeCurrencyIconUrl: n.nativeCurrency.iconUrl ?? "",
    nativeCurrencyDecimals: n.nativeCurrency.decimals,
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
  chainName: string;
  rpcUrl: string;
  blockExplorerUrl: string;
  nativeCurrencyName: string;
  nativeCurrencySymbol: string;
  nativeCurrencyIconUrl: string;
  nativeCurrencyDecimals?: number;
}

/**
 * The network from either request form: Sigil's (name, rpcUrls, nativeCurrency {...}) or the published
 * client's flat CustomNetworkRequest (chainName, rpcUrl, nativeCurrency*). Fields of Sigil's form win
 * where both are given.
 */
function inputOf(req: NetworkRequest): CustomNetworkInput {
  // int64 arrives as bigint; beyond 2^53 it could not round-trip through JSON numbers, so it is refused.
  if (req.chainId <= 0n || req.chainId > BigInt(Number.MAX_SAFE_INTEGER))
    throw badRequest("invalid_chain_id", "chainId must be a positive integer", { field: "chainId" });
  const name = req.name || req.chainName;
  const rpcUrls = req.rpcUrls.length ? req.rpcUrls : req.rpcUrl ? [req.rpcUrl] : [];
  const c = req.nativeCurrency;
  const currency = c
    ? { name: c.name, symbol: c.symbol, decimals: c.decimals, iconUrl: orNull(c.iconUrl) }
    : { name: req.nativeCurrencyName, symbol: req.nativeCurrencySymbol, decimals: req.nativeCurrencyDecimals, iconUrl: orNull(req.nativeCurrencyIconUrl) };
  const missing = [
    !name && { field: "name", message: "is required (or chainName)" },
    !rpcUrls.length && { field: "rpcUrls", message: "is required (or rpcUrl)" },
    !currency.name && { field: "nativeCurrency.name", message: "is required (or nativeCurrencyName)" },
    !currency.symbol && { field: "nativeCurrency.symbol", message: "is required (or nativeCurrencySymbol)" },
    currency.decimals === undefined && { field: "nativeCurrencyDecimals", message: "is required (or nativeCurrency.decimals)" },
  ].filter((v): v is { field: string; message: string } => Boolean(v));
  if (missing.length)
    throw badRequest("validation_error", `invalid request: ${missing.map((v) => `${v.field} ${v.message}`).join("; ")}`, { errors: missing });
  return {
    name,
    chainId: Number(req.chainId),
    rpcUrls,
    blockExplorerUrls: req.blockExplorerUrls.length ? req.blockExplorerUrls : req.blockExplorerUrl ? [req.blockExplorerUrl] : [],
    nativeCurrency: { ...currency, decimals: currency.decimals! },
    iconUrl: orNull(req.iconUrl),
    testnet: req.testnet,
  };
}

export function registerCustomNetworks(router: ConnectRouter, deps: Deps) {
  const view = (n: CustomNetworkRecord) => ({ customNetwork: toNetwork(n) });
  router.service(CustomNetworksService, {
    async listCustomNetworks(req, ctx) {
      const access = organizationOf(ctx);
      const { networks: list, count } = await networks.listNetworks(deps, access, pageOf(req));
      return { customNetworks: list.map((n) => ({ customNetwork: toNetwork(n) })), count };
    },
    async createCustomNetwork(req, ctx) {
      const access = organizationOf(ctx);
      return view(await networks.createNetwork(deps, access, inputOf(req)));
    },
    async getCustomNetwork(req, ctx) {
      const access = organizationOf(ctx);
      return view(await networks.getNetwork(deps, access, req.networkId));
    },
    async updateCustomNetwork(req, ctx) {
      const access = organizationOf(ctx);
      return view(await networks.updateNetwork(deps, access, req.networkId, inputOf(req)));
    },
    async deleteCustomNetwork(req, ctx) {
      const access = organizationOf(ctx);
      await networks.deleteNetwork(deps, access, req.networkId);
      return {};
    },
  });
}
