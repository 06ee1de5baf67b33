/** The published client calls the Solana VM "SVM"; WaaS wallets and policy rules store the chain as SOL. */
export const fromClientChain = (chain: string) => (chain === "SVM" ? "SOL" : chain);

/** A stored WaaS chain under the published client's name. */
export const toClientChain = (chain: string) => (chain === "SOL" ? "SVM" : chain);
