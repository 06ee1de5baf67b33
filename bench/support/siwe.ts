/**
 * The wallet side of a Sign-In With Ethereum bench: throwaway EOA keys, and VerifyRequest bodies (the
 * published client's shape) whose EIP-4361 messages carry nonces the server issued, signed ahead of the
 * measured verify calls (signing is the client's CPU; on a shared 2-core machine it would otherwise be
 * counted against the server).
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

export function throwawayWallets(n: number): PrivateKeyAccount[] {
  return Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
}

/** One VerifyRequest body per nonce, signed by `walletFor(i)`; messages name this domain and uri. */
export async function signedVerifyBodies(nonces: readonly string[], walletFor: (i: number) => PrivateKeyAccount): Promise<string[]> {
  const bodies: string[] = [];
  for (const [i, nonce] of nonces.entries()) {
    const wallet = walletFor(i);
    const messageToSign = createSiweMessage({
      address: wallet.address,
      chainId: 1,
      domain: "localhost",
      uri: "http://localhost/",
      version: "1",
      nonce,
      issuedAt: new Date(),
      statement: "Sign in to the Sigil bench",
    });
    const signedMessage = await wallet.signMessage({ message: messageToSign });
    bodies.push(
      JSON.stringify({
        messageToSign,
        signedMessage,
        publicWalletAddress: wallet.address,
        chain: "EVM",
        walletName: "metamask",
        walletProvider: "browserExtension",
      }),
    );
  }
  return bodies;
}
