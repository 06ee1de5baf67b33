/**
 * The wallet side of a Sign-In With Ethereum bench: throwaway EOA keys, and VerifyRequest bodies (the
 * published client's shape; the peer's own shape for its server) whose EIP-4361 messages carry nonces the
 * server issued, signed ahead of the
 * measured verify calls (signing is the client's CPU; on a shared 2-core machine it would otherwise be
 * counted against the server).
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

export function throwawayWallets(n: number): PrivateKeyAccount[] {
  return Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
}

/** The EIP-4361 message of one nonce, naming this domain and uri, and its signature by `wallet`. */
async function signedMessage(nonce: string, wallet: PrivateKeyAccount): Promise<{ message: string; signature: string }> {
  const message = createSiweMessage({
    address: wallet.address,
    chainId: 1,
    domain: "localhost",
    uri: "http://localhost/",
    version: "1",
    nonce,
    issuedAt: new Date(),
    statement: "Sign in to the Sigil bench",
  });
  return { message, signature: await wallet.signMessage({ message }) };
}

/** One VerifyRequest body per nonce, signed by `walletFor(i)`. */
export async function signedVerifyBodies(nonces: readonly string[], walletFor: (i: number) => PrivateKeyAccount): Promise<string[]> {
  const bodies: string[] = [];
  for (const [i, nonce] of nonces.entries()) {
    const wallet = walletFor(i);
    const { message, signature } = await signedMessage(nonce, wallet);
    bodies.push(
      JSON.stringify({
        messageToSign: message,
        signedMessage: signature,
        publicWalletAddress: wallet.address,
        chain: "EVM",
        walletName: "metamask",
        walletProvider: "browserExtension",
      }),
    );
  }
  return bodies;
}

/**
 * One body of Better Auth's POST /siwe/verify per nonce, the same message signed by `wallet`: 1.7's body is
 * {message, signature} and nothing else (a strict schema; the address and chain are read from the message).
 */
export async function signedPeerBodies(nonces: readonly string[], wallet: PrivateKeyAccount): Promise<string[]> {
  const bodies: string[] = [];
  for (const nonce of nonces) bodies.push(JSON.stringify(await signedMessage(nonce, wallet)));
  return bodies;
}
