import { createHash } from "node:crypto";
import { unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { ChainEndpoint } from "./nodes.js";

/** A network and its node, as endpoints.ts resolves it (named here by shape: endpoints.ts calls this module). */
interface LocatedNetwork {
  family: string;
  networkId: number;
  endpoint: ChainEndpoint;
}

/**
 * How long a node's answer to eth_chainId is trusted. A URL's chain rarely changes, so the check costs the
 * node one call per URL every few minutes across all api processes; an operator who repoints a URL to the
 * right chain waits at most this long.
 */
export const CHAIN_IDENTITY_TTL_SECONDS = 300;

/** 422: the node answers for another chain than the network it is configured for; nothing it said is used. */
export const chainMismatch = (chain: string, networkId: number, nodeChainId: number) =>
  unprocessable("chain_mismatch", `the node configured for ${chain} network ${networkId} serves chain ${nodeChainId}; fix its URL`, {
    chain,
    networkId,
    nodeChainId,
  });

const urlKey = (net: LocatedNetwork) => createHash("sha256").update(`${net.endpoint.trusted}|${net.endpoint.url}`).digest("hex").slice(0, 32);

/**
 * Checks that an EVM network's node is the chain it is configured for (its eth_chainId against the network
 * id), so a misconfigured URL answers 422 chain_mismatch instead of another chain's data. The node's answer
 * is cached per URL in the shared store. Solana nodes are not checked: a cluster is named by its genesis
 * hash, and a local validator (or the tests' chain) standing in for devnet has its own.
 */
export async function checkChainIdentity(deps: Pick<Deps, "store" | "chainNodes">, net: LocatedNetwork): Promise<void> {
  if (net.family !== "EVM") return;
  const key = `chain-identity:v1:${urlKey(net)}`;
  const cached = await deps.store.get(key);
  let nodeChainId = cached === null ? NaN : Number(cached);
  if (Number.isNaN(nodeChainId)) {
    nodeChainId = await deps.chainNodes.evm(net.endpoint).chainId();
    await deps.store.set(key, String(nodeChainId), CHAIN_IDENTITY_TTL_SECONDS);
  }
  if (nodeChainId !== net.networkId) throw chainMismatch("EVM", net.networkId, nodeChainId);
}
