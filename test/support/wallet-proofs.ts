import { ed25519 } from "@noble/curves/ed25519.js";
import { base58, base64 } from "@scure/base";
import { ChainEnum, WalletProviderEnum, type VerifyRequest } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

/**
 * Throwaway wallets and the sign-in proofs a client app makes with them: EIP-4361 messages signed by a viem
 * account, Solana sign-in messages signed with an ed25519 key. Nonces come from the server (getNonce).
 */

export const APP_DOMAIN = "app.example.com";
export const APP_URI = "https://app.example.com/login";


export const newEvmWallet = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());

export interface SiweOverrides {
  domain?: string;
  uri?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
  /** The address the message names (default: the signer's). */
  address?: `0x${string}`;
  /** The message's Chain ID (default 1). */
  chainId?: number;
}

export async function evmProof(account: PrivateKeyAccount, nonce: string, o: SiweOverrides = {}): Promise<VerifyRequest> {
  const message = createSiweMessage({
    address: o.address ?? account.address,
    chainId: o.chainId ?? 1,
    domain: o.domain ?? APP_DOMAIN,
    uri: o.uri ?? APP_URI,
    version: "1",
    nonce,
    issuedAt: o.issuedAt ?? new Date(),
    expirationTime: o.expirationTime,
    notBefore: o.notBefore,
    statement: "Sign in to the example app",
  });
  return {
    chain: ChainEnum.Evm,
    publicWalletAddress: account.address,
    messageToSign: message,
    signedMessage: await account.signMessage({ message }),
    walletName: "metamask",
    walletProvider: WalletProviderEnum.BrowserExtension,
  };
}

export interface SolanaWallet {
  secretKey: Uint8Array;
  address: string;
}

export function newSolanaWallet(): SolanaWallet {
  const secretKey = ed25519.utils.randomSecretKey();
  return { secretKey, address: base58.encode(ed25519.getPublicKey(secretKey)) };
}

export function solanaMessage(address: string, nonce: string, o: { domain?: string; uri?: string; issuedAt?: Date } = {}): string {
  return [
    `${o.domain ?? APP_DOMAIN} wants you to sign in with your Solana account:`,
    address,
    "",
    "Sign in to the example app",
    "",
    `URI: ${o.uri ?? APP_URI}`,
    "Version: 1",
    "Chain ID: mainnet",
    `Nonce: ${nonce}`,
    `Issued At: ${(o.issuedAt ?? new Date()).toISOString()}`,
  ].join("\n");
}

export function solanaProof(wallet: SolanaWallet, nonce: string, opts: { encoding?: "base58" | "base64"; message?: string } = {}): VerifyRequest {
  const message = opts.message ?? solanaMessage(wallet.address, nonce);
  const signature = ed25519.sign(new TextEncoder().encode(message), wallet.secretKey);
  return {
    chain: ChainEnum.Sol,
    publicWalletAddress: wallet.address,
    messageToSign: message,
    signedMessage: opts.encoding === "base64" ? base64.encode(signature) : base58.encode(signature),
    walletName: "phantom",
    walletProvider: WalletProviderEnum.BrowserExtension,
  };
}

