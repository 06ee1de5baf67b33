import { randomBytes } from "node:crypto";
import { verifyMessage } from "viem";
import { normalize } from "viem/ens";
import { badRequest } from "../../errors.js";
import { canonicalEvmAddress } from "../wallets/addresses.js";

/**
 * The ownership challenge of a name service: a plain-text, EIP-4361-like message naming the environment,
 * chain, domain and owner address, with a random single-use nonce and an expiry. The owner signs it with
 * the wallet key (EIP-191 personal_sign for EVM); the service verifies the signature against the message it
 * issued and stored, never against text the caller sends back.
 */

export const CHALLENGE_TTL_SECONDS = 10 * 60;
/** The stored challenge outlives its expiry a little, so that a late answer reads "expired", not "unknown". */
export const CHALLENGE_GRACE_SECONDS = 5 * 60;

export interface PendingChallenge {
  environmentId: string;
  chainName: string;
  domain: string;
  address: string;
  message: string;
  nonce: string;
  expiresAt: string;
}

export const challengeKey = (environmentId: string, chainName: string, nonce: string) =>
  `name-service:challenge:${environmentId}:${chainName}:${nonce}`;

/**
 * The nonce of the newest challenge issued for (environment, chain, domain, owner): the published client
 * creates a name service with the signature alone, without the message or its nonce.
 */
export const latestChallengeKey = (environmentId: string, chainName: string, domain: string, address: string) =>
  `name-service:latest-challenge:${environmentId}:${chainName}:${domain}:${address}`;

/**
 * An ENS-like name, normalized (ENSIP-15, lowercase): at least two non-empty dot-separated labels, at most
 * 253 characters, no whitespace. 400 invalid_domain otherwise.
 */
export function normalizeDomain(input: string): string {
  let name: string;
  try {
    name = normalize(input.trim());
  } catch {
    throw badRequest("invalid_domain", "domain must be a valid ENS-like name such as myapp.eth", { field: "domain" });
  }
  const labels = name.split(".");
  if (labels.length < 2 || labels.some((l) => l.length === 0 || l.length > 63) || name.length > 253 || /[\s/\\:@]/u.test(name))
    throw badRequest("invalid_domain", "domain must be a valid ENS-like name such as myapp.eth", { field: "domain" });
  return name;
}

/** The owner address in its canonical form for the chain (EIP-55 for EVM). 400 invalid_address otherwise. */
export function canonicalOwnerAddress(chainName: string, address: string): string {
  const canonical = chainName === "EVM" ? canonicalEvmAddress(address) : null;
  if (canonical) return canonical;
  throw badRequest("invalid_address", `address is not a valid ${chainName} address (mixed-case EVM addresses must carry a valid EIP-55 checksum)`, {
    field: "address",
  });
}

export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

export function challengeMessage(p: {
  host: string;
  publicUrl: string;
  environmentId: string;
  chainName: string;
  domain: string;
  address: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}): string {
  return [
    `${p.host} asks you to prove that you own the name-service domain ${p.domain} with your account:`,
    p.address,
    "",
    `Sign this message to link ${p.domain} to environment ${p.environmentId} on chain ${p.chainName}. Signing sends no transaction and costs nothing.`,
    "",
    `URI: ${p.publicUrl}`,
    "Version: 1",
    `Chain: ${p.chainName}`,
    `Environment: ${p.environmentId}`,
    `Domain: ${p.domain}`,
    `Nonce: ${p.nonce}`,
    `Issued At: ${p.issuedAt.toISOString()}`,
    `Expiration Time: ${p.expiresAt.toISOString()}`,
  ].join("\n");
}

/** The nonce line of a message, if any. */
export function nonceOf(message: string): string | null {
  return /^Nonce: ([A-Za-z0-9]+)$/m.exec(message)?.[1] ?? null;
}

/** Whether `signature` is `address`'s signature of `message` on the chain (EIP-191 for EVM). */
export async function isValidSignature(chainName: string, address: string, message: string, signature: string): Promise<boolean> {
  if (chainName !== "EVM") return false;
  try {
    return await verifyMessage({ address: address as `0x${string}`, message, signature: signature as `0x${string}` });
  } catch {
    // Malformed signatures (wrong length, bad recovery byte) are simply not valid ones.
    return false;
  }
}
