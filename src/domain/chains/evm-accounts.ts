/**
 * What the sign-in reads about an EVM account from its chain's node (implemented in src/adapters/evm-accounts.ts):
 * whether the account accepts a signature (a smart-contract wallet, ERC-1271, or one not deployed yet,
 * ERC-6492), and what it holds of the tokens a gate names. Like every node port it answers what the node said,
 * or throws chain_unavailable (503) / not_configured (422); never a guess.
 */

/** One holding to read: a fungible token's balance, an ERC-721 collection's count, or one token id of a collection. */
export type HoldingQuery =
  | { kind: "erc20"; contract: string }
  | { kind: "erc721"; contract: string }
  /** One token id: an ERC-1155 balance, or for an ERC-721 1 when the owner holds it (0 when not, or when it does not exist). */
  | { kind: "nftToken"; contract: string; tokenId: bigint };

export interface EvmAccounts {
  /**
   * Whether `address` accepts `signature` over `hash`: through ERC-6492's universal validator in one eth_call
   * (a deployed contract answers isValidSignature, a 6492 wrapper's factory call runs first inside the call
   * and deploys nothing, an address without code is checked as an EOA). False when it does not verify.
   */
  verifyHash(address: string, hash: `0x${string}`, signature: `0x${string}`): Promise<boolean>;
  /** The owner's holding of each query, in the token's smallest unit (multicall); null where the contract did not answer as the kind says. */
  holdings(owner: string, queries: readonly HoldingQuery[]): Promise<(bigint | null)[]>;
}
