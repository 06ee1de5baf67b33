/** One SPL token account's balance before or after a transaction, as a node reports it (by the transaction's account index). */
export interface SolanaTokenBalance {
  accountIndex: number;
  mint: string;
  /** The token account's owner (wallet), when the node names it. */
  owner: string | null;
  amount: bigint;
  decimals: number;
}

/** What transactions moved, summed: the balance changes of each party. */
export interface SolanaDeltas {
  /** Lamports per account, the fee left out (it is the network's, not a transfer). */
  lamports: Map<string, bigint>;
  /** Base units per owner and mint (keyed `owner|mint`). */
  tokens: Map<string, { owner: string; mint: string; decimals: number; delta: bigint }>;
  /** The token accounts seen: their lamports are rent, not a transfer of their owner's. */
  tokenAccounts: Set<string>;
}

export const noSolanaDeltas = (): SolanaDeltas => ({ lamports: new Map(), tokens: new Map(), tokenAccounts: new Set() });

/** A transaction's balances before and after, in the node's terms; `keys` in the balance lists' order (the fee payer first). */
export interface SolanaBalanceRecord {
  keys: readonly string[];
  preBalances: readonly bigint[] | null;
  postBalances: readonly bigint[] | null;
  fee: bigint | null;
  preTokenBalances: readonly SolanaTokenBalance[] | null;
  postTokenBalances: readonly SolanaTokenBalance[] | null;
}

/**
 * Adds what one transaction moved to `into`, from the node's balances before and after (a landed
 * transaction's or a simulation's): lamports per account with the fee given back to the payer, and token
 * base units per owner and mint.
 */
export function addSolanaDeltas(into: SolanaDeltas, tx: SolanaBalanceRecord): void {
  if (tx.preBalances && tx.postBalances) {
    const [pre, post] = [tx.preBalances, tx.postBalances];
    tx.keys.forEach((key, i) => {
      let delta = (post[i] ?? 0n) - (pre[i] ?? 0n);
      if (i === 0 && tx.fee !== null) delta += tx.fee;
      if (delta !== 0n) into.lamports.set(key, (into.lamports.get(key) ?? 0n) + delta);
    });
  }
  const side = (list: readonly SolanaTokenBalance[] | null, sign: 1n | -1n) => {
    for (const b of list ?? []) {
      const account = tx.keys[b.accountIndex];
      if (account) into.tokenAccounts.add(account);
      const owner = b.owner ?? account ?? "";
      const key = `${owner}|${b.mint}`;
      const entry = into.tokens.get(key) ?? { owner, mint: b.mint, decimals: b.decimals, delta: 0n };
      entry.delta += sign * b.amount;
      into.tokens.set(key, entry);
    }
  };
  side(tx.postTokenBalances, 1n);
  side(tx.preTokenBalances, -1n);
}
