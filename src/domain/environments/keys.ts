import { randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from "jose";
import type { Queryable } from "../../db/db.js";
import * as keys from "../../db/repositories/environment-keys.js";
import type { Sealer } from "../../crypto/seal.js";

/**
 * The algorithms an environment may sign its end users' JWTs with. ES256 (P-256) is the default: small keys,
 * fast to make on demand. RS256 is there for relying parties that only verify RSA (it verifies 3x faster
 * than ES256 but signs 16x slower; see docs/benchmarks.md).
 */
export const SIGNING_ALGS = ["ES256", "RS256"] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];
export const DEFAULT_SIGNING_ALG: SigningAlg = "ES256";

/** Binds a sealed private key to its row, so a sealed value copied elsewhere does not open. */
export const signingKeyAad = (keyId: string) => `environment_signing_key:${keyId}`;

type NewKey = Parameters<typeof keys.insertSigningKeyIfAbsent>[2];

/** A fresh key pair of `alg`, its private half sealed to its row id. */
async function generateSigningKey(deps: { sealer: Sealer }, alg: SigningAlg): Promise<NewKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const id = randomUUID();
  const publicJwk: Record<string, string> =
    alg === "RS256" ? { kty: jwk.kty!, n: jwk.n!, e: jwk.e!, kid, alg, use: "sig" } : { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, kid, alg, use: "sig" };
  return {
    id,
    kid,
    alg,
    publicKeyPem: await exportSPKI(publicKey),
    publicJwk,
    privateKeySealed: deps.sealer.seal(await exportPKCS8(privateKey), signingKeyAad(id)),
  };
}

/**
 * The environment's current signing key, created if it has none. Safe under concurrency: the insert does
 * nothing when another request created the key first, and everybody reads the winner's.
 */
export async function ensureSigningKey(deps: { sealer: Sealer }, q: Queryable, environmentId: string): Promise<keys.SigningKeyRecord> {
  const found = await keys.findSigningKey(q, environmentId);
  if (found) return found;
  await keys.insertSigningKeyIfAbsent(q, environmentId, await generateSigningKey(deps, DEFAULT_SIGNING_ALG));
  return (await keys.findSigningKey(q, environmentId))!;
}

/**
 * Replaces the current key by a new one of `alg` (in the caller's transaction). The old key stays in the
 * JWKS for `keepPublishedSeconds` (the longest a token it signed can still live), so tokens issued before
 * the rotation keep verifying until they expire.
 */
export async function rotateSigningKey(deps: { sealer: Sealer }, q: Queryable, environmentId: string, alg: SigningAlg, keepPublishedSeconds: number): Promise<void> {
  await keys.rotateSigningKey(q, environmentId, await generateSigningKey(deps, alg), new Date(Date.now() + keepPublishedSeconds * 1000));
}
