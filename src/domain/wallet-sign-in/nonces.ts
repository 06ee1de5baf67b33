import { randomBytes } from "node:crypto";
import type { EphemeralStore } from "../../store/store.js";

/**
 * Sign-in nonces: 128 bits of randomness in hex (EIP-4361 wants alphanumeric, at least 8 characters),
 * valid 10 minutes, single use, kept in the store under the environment's id, so that a nonce issued for
 * one environment is unknown to every other.
 */
export const NONCE_TTL_SECONDS = 600;
const NONCE_SHAPE = /^[A-Za-z0-9]{8,128}$/;

const nonceKey = (environmentId: string, nonce: string) => `wallet-sign-in:nonce:${environmentId}:${nonce}`;

export async function issueNonce(store: EphemeralStore, environmentId: string): Promise<string> {
  const nonce = randomBytes(16).toString("hex");
  await store.set(nonceKey(environmentId, nonce), "1", NONCE_TTL_SECONDS);
  return nonce;
}

/**
 * Uses up the nonce (reads and deletes it atomically): true once for a nonce this environment issued and
 * nobody used, false for every other call, including a concurrent one with the same nonce.
 */
export async function takeNonce(store: EphemeralStore, environmentId: string, nonce: string): Promise<boolean> {
  if (!NONCE_SHAPE.test(nonce)) return false;
  return (await store.take(nonceKey(environmentId, nonce))) !== null;
}
