import {
  type Instruction,
  type KeyPairSigner,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  devnet,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageComputeUnitLimit,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";

/** A recent blockhash and the last block height it is good for. */
type Lifetime = Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0];

/**
 * What a client signs for a node: a v0 transaction paid by `payer`, on the node's latest blockhash unless
 * `lifetime` names another, with a compute-unit limit when one is given, signed by every signer its
 * instructions carry.
 */
export async function signedTransaction(rpcUrl: string, payer: KeyPairSigner, instructions: Instruction[], opts: { computeUnitLimit?: number; lifetime?: Lifetime } = {}) {
  const lifetime = opts.lifetime ?? (await createSolanaRpc(devnet(rpcUrl)).getLatestBlockhash().send()).value;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => (opts.computeUnitLimit === undefined ? m : setTransactionMessageComputeUnitLimit(opts.computeUnitLimit, m)),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

/** signedTransaction as the base64 wire bytes a client sends (sendTransaction, the SDK's simulate and optimize). */
export async function signedWire(rpcUrl: string, payer: KeyPairSigner, instructions: Instruction[], opts: { computeUnitLimit?: number } = {}) {
  return getBase64EncodedWireTransaction(await signedTransaction(rpcUrl, payer, instructions, opts));
}
