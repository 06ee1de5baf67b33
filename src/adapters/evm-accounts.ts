import { type Abi, createPublicClient, erc1155Abi, erc20Abi, erc721Abi, http, isAddressEqual, parseAbi, type Address, type PublicClient } from "viem";
import type { ChainSettings } from "../config-chains.js";
import type { EvmAccounts, HoldingQuery } from "../domain/chains/evm-accounts.js";
import type { ChainEndpoint } from "../domain/chains/nodes.js";
import { DomainError } from "../errors.js";
import { asChainError } from "./chain-errors.js";
import type { ChainPost } from "./chain-http.js";

const erc165Abi = parseAbi(["function supportsInterface(bytes4 interfaceId) view returns (bool)"]);
/** ERC-165 id of ERC-1155: a token id of such a collection is a balance, of any other one an owner. */
const ERC1155_INTERFACE = "0xd9b67a26";

/**
 * A viem client whose HTTP goes through `post` (pinned connections, deadline, bounded answer), retrying
 * nothing. `onTransportError` sees every failure of the transport itself: viem's verifyHash turns any failed
 * eth_call into "does not verify", and a node that is down must be told apart from a bad signature.
 */
function clientFor(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings, onTransportError?: (err: unknown) => void): PublicClient {
  return createPublicClient({
    transport: http(endpoint.url, {
      retryCount: 0,
      timeout: settings.timeoutMs,
      fetchFn: async (_input, init) => {
        try {
          return new Response(await post(String(init?.body ?? ""), init?.signal), { status: 200, headers: { "content-type": "application/json" } });
        } catch (err) {
          onTransportError?.(err);
          throw err;
        }
      },
    }),
  }) as PublicClient;
}

/** Signatures and holdings of EVM accounts through viem (verifyHash; deployless multicall as in evm-node.ts). */
export function createEvmAccounts(endpoint: ChainEndpoint, post: ChainPost, settings: ChainSettings): EvmAccounts {
  const shared = clientFor(endpoint, post, settings);
  return {
    async verifyHash(address, hash, signature) {
      // A client per check, so that its transport failure is this check's and is answered as such (503).
      let failed: unknown;
      const client = clientFor(endpoint, post, settings, (err) => (failed ??= err));
      let valid: boolean;
      try {
        valid = await client.verifyHash({ address: address as Address, hash, signature });
      } catch (err) {
        throw asChainError(failed ?? err);
      }
      if (failed) throw failed instanceof DomainError ? failed : asChainError(failed);
      return valid;
    },
    async holdings(owner, queries) {
      if (queries.length === 0) return [];
      const who = owner as Address;
      const calls = queries.flatMap((q) => callsOf(q, who));
      const results = await shared
        .multicall({ contracts: calls as never, allowFailure: true, deployless: true, batchSize: settings.multicallBatchBytes })
        .catch((err) => {
          throw asChainError(err);
        });
      const answers = (results as { status: "success" | "failure"; result?: unknown }[]).map((r) => (r.status === "success" ? r.result : undefined));
      let i = 0;
      return queries.map((q) => {
        const parts = answers.slice(i, i + callsOf(q, who).length);
        i += parts.length;
        return holdingOf(q, who, parts);
      });
    },
  };
}

function callsOf(q: HoldingQuery, owner: Address): { address: Address; abi: Abi; functionName: string; args: readonly unknown[] }[] {
  const address = q.contract as Address;
  if (q.kind === "erc20") return [{ address, abi: erc20Abi, functionName: "balanceOf", args: [owner] }];
  if (q.kind === "erc721") return [{ address, abi: erc721Abi, functionName: "balanceOf", args: [owner] }];
  return [
    { address, abi: erc165Abi, functionName: "supportsInterface", args: [ERC1155_INTERFACE] },
    { address, abi: erc1155Abi, functionName: "balanceOf", args: [owner, q.tokenId] },
    { address, abi: erc721Abi, functionName: "ownerOf", args: [q.tokenId] },
  ];
}

/**
 * The holding a query's answers mean. An ERC-721's ownerOf reverts for a token that does not exist: that is
 * 0 held, not an unreadable contract, once the contract has said (ERC-165) it is no ERC-1155.
 */
function holdingOf(q: HoldingQuery, owner: Address, [first, balance1155, ownerOf]: unknown[]): bigint | null {
  if (q.kind !== "nftToken") return typeof first === "bigint" ? first : null;
  if (first === true) return typeof balance1155 === "bigint" ? balance1155 : null;
  if (first !== false) return null;
  return typeof ownerOf === "string" && isAddressEqual(ownerOf as Address, owner) ? 1n : 0n;
}
