/**
 * Solana clusters by the network ids the published client uses (101 mainnet-beta, 102 testnet, 103 devnet)
 * and their CAIP-2 references (genesis hash prefixes).
 */
export const SOLANA_CLUSTERS: readonly (readonly [number, string])[] = [
  [101, "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
  [102, "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z"],
  [103, "EtWTRABZaYq6iMfeYKouRu166VU2xqa1"],
];

const CLUSTER_NAMES: Readonly<Record<string, number>> = { mainnet: 101, "mainnet-beta": 101, testnet: 102, devnet: 103 };

/**
 * The network id of a Solana cluster as a request may name it: its network id ("101"), its name
 * ("mainnet-beta", "devnet"; any case), or its CAIP-2 id or reference. Undefined for anything else.
 */
export function solanaNetworkIdOf(named: string): number | undefined {
  const text = named.trim();
  const byName = CLUSTER_NAMES[text.toLowerCase()];
  if (byName !== undefined) return byName;
  const reference = text.startsWith("solana:") ? text.slice("solana:".length) : text;
  return SOLANA_CLUSTERS.find(([id, ref]) => String(id) === text || ref === reference)?.[0];
}

export const isSolanaNetworkId = (id: number) => SOLANA_CLUSTERS.some(([networkId]) => networkId === id);
