import { findProofRules } from "../../db/repositories/wallet-sign-in.js";
import { DomainError, unprocessable } from "../../errors.js";
import type { Deps } from "../deps.js";
import { effectiveSettings, type ChainSetting } from "../environments/settings.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { chainAliases, normalizeWalletAddress } from "../wallets/addresses.js";
import { parseEvmMessage, verifyEvmSignature } from "./evm.js";
import { checkMessageRules, type SignInMessage } from "./message-rules.js";
import { takeNonce } from "./nonces.js";
import { contractWalletCheck } from "./smart-account.js";
import { parseSolanaMessage, verifySolanaSignature } from "./solana.js";
import type { PublicEnvironment } from "../tenancy/access.js";

/** What the client sends to prove a wallet (the published client's VerifyRequest). */
export interface WalletProofInput {
  chain: string;
  publicWalletAddress: string;
  messageToSign: string;
  signedMessage: string;
  walletName: string;
  walletProvider: string;
  additionalWalletAddresses?: { address: string; type: string; publicKey: string | null }[];
}

/** How each supported chain family reads its message and checks its signature. */
interface ChainVerifier {
  /** The chain the wallet is stored under (ETH is the older name of EVM). */
  stored: string;
  parse(text: string): SignInMessage;
  /** Whether the message's network is one the environment offers, when its chain setting lists them. */
  checkNetwork?(message: SignInMessage, chains: readonly ChainSetting[]): void;
  sameAddress(messageAddress: string, canonical: string): boolean;
  verify(text: string, signature: string, canonical: string, message: SignInMessage, context: ProofContext): Promise<void> | void;
}

/** What a proof may consult beyond the request: the chain nodes of the environment (smart-contract wallets). */
interface ProofContext {
  deps: Pick<Deps, "db" | "store" | "config" | "chainNodes">;
  env: PublicEnvironment;
}

const EVM: ChainVerifier = {
  stored: "EVM",
  parse: parseEvmMessage,
  checkNetwork: checkEvmChainId,
  sameAddress: (a, canonical) => a.toLowerCase() === canonical.toLowerCase(),
  verify: (text, signature, canonical, message, { deps, env }) =>
    verifyEvmSignature(text, signature, canonical, contractWalletCheck(deps, env, message.chainId ?? "")),
};
const SOL: ChainVerifier = { stored: "SOL", parse: parseSolanaMessage, sameAddress: (a, canonical) => a === canonical, verify: verifySolanaSignature };
const VERIFIERS: Record<string, ChainVerifier> = { EVM, ETH: EVM, SOL };

/**
 * Proves that the caller controls the wallet: the chain is one we verify and the environment enables, the
 * message names this wallet, is in its time window and (when the environment has origins) was made for
 * one of them, the signature is the wallet's (an EOA's, or for EVM a smart-contract wallet's: smart-account.ts),
 * and the message's nonce was issued by this environment and is
 * used up now (atomically: of two requests with one nonce, one wins). Cheap checks run before the
 * signature, and the nonce is taken last, so a forged request cannot burn a real user's nonce.
 */
export async function proveWallet(
  deps: Pick<Deps, "db" | "store" | "config" | "chainNodes">,
  env: PublicEnvironment,
  input: WalletProofInput,
): Promise<ProvenCredential> {
  const environmentId = env.environmentId;
  const verifier = VERIFIERS[input.chain];
  if (!verifier)
    throw unprocessable("chain_not_supported", `wallet sign-in verifies EVM (EIP-4361) and SOL (Solana sign-in) messages, not ${input.chain}`, {
      chain: input.chain,
    });
  const rules = await findProofRules(deps.db, environmentId);
  if (!rules) throw new DomainError("not_found", "not_found", "environment not found");
  const chains = effectiveSettings(rules.settings).chains;
  checkChainEnabled(chains, input.chain);
  const address = normalizeWalletAddress(verifier.stored, input.publicWalletAddress);
  const message = verifier.parse(input.messageToSign);
  if (!verifier.sameAddress(message.address, address))
    throw unprocessable("address_mismatch", "the sign-in message names another address than publicWalletAddress");
  verifier.checkNetwork?.(message, chains);
  checkMessageRules(message, new Set(rules.origins));
  await verifier.verify(input.messageToSign, input.signedMessage, address, message, { deps, env });
  if (!(await takeNonce(deps.store, environmentId, message.nonce)))
    throw unprocessable("invalid_nonce", "the message's nonce was not issued by this environment, has expired or was already used: get a new nonce");
  return {
    kind: "wallet",
    chain: verifier.stored,
    address,
    walletName: input.walletName,
    walletProvider: input.walletProvider,
    additionalAddresses: input.additionalWalletAddresses ?? [],
  };
}

/** When the environment lists its chains, the wallet's chain must be on among them. */
function checkChainEnabled(chains: readonly ChainSetting[], chain: string): void {
  if (chains.length === 0) return;
  const names = new Set(chainAliases(chain));
  if (!chains.some((c) => c.enabled && names.has(c.name.toUpperCase())))
    throw unprocessable("chain_disabled", `${chain} wallets are not enabled in this environment`, { chain });
}

/**
 * When the environment's EVM chain setting lists networks, the message's Chain ID must be an enabled one:
 * a signature made for a network the app does not offer (another app's, a test network) does not sign in
 * here. No networks listed: any Chain ID, as before networks were configured.
 */
function checkEvmChainId(message: SignInMessage, chains: readonly ChainSetting[]): void {
  const evm = new Set(chainAliases("EVM"));
  const listed = chains.filter((c) => c.enabled && evm.has(c.name.toUpperCase())).flatMap((c) => c.networks ?? []);
  if (listed.length === 0) return;
  const chainId = message.chainId ?? "";
  if (!listed.some((n) => n.enabled && String(n.networkId) === chainId))
    throw unprocessable("chain_id_not_allowed", `the sign-in message's Chain ID ${chainId.slice(0, 20)} is not a network this environment offers`, {
      chainId,
    });
}
