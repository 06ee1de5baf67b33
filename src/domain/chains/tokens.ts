import { readFileSync } from "node:fs";
import { chainAliases } from "../wallets/addresses.js";

/**
 * Known tokens per chain: reference data shipped with the service (known-tokens.json beside this file), not
 * fetched from any chain; balances read these tokens' amounts from the nodes (src/domain/balances/account.ts).
 * ETH is the older name of the EVM family.
 */
export interface KnownToken {
  name: string;
  symbol: string;
  tokenAddresses: { networkId: number; contractAddress: string }[];
}

interface CatalogueEntry extends KnownToken {
  chain: string;
}

const catalogue: CatalogueEntry[] = JSON.parse(readFileSync(new URL("./known-tokens.json", import.meta.url), "utf8")).tokens;

/** The known tokens of a chain, with only the addresses on `networkId` when given (tokens without one left out). */
export function tokensOfChain(chain: string, networkId: number | null): KnownToken[] {
  return catalogue
    .filter((t) => chainAliases(chain).includes(t.chain))
    .map((t) => ({
      name: t.name,
      symbol: t.symbol,
      tokenAddresses: t.tokenAddresses.filter((a) => networkId === null || a.networkId === networkId),
    }))
    .filter((t) => t.tokenAddresses.length > 0);
}
