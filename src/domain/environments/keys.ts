import { randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, type CryptoKey } from "jose";
import type { Queryable } from "../../db/db.js";
import * as keys from "../../db/repositories/environment-keys.js";
import type { Deps } from "../deps.js";

/** Environments sign their end users' JWTs with ES256 (P-256): small keys, fast to make on demand. */
export const SIGNING_ALG = "ES256";

/** Binds a sealed private key to its row, so a sealed value copied elsewhere does not open. */
export const signingKeyAad = (keyId: string) => `environment_signing_key:${keyId}`;

/**
 * The environment's signing key, created if it has none. Safe under concurrency: the insert does nothing
 * when another request created the key first, and everybody reads the winner's.
 */
export async function ensureSigningKey(deps: Pick<Deps, "sealer">, q: Queryable, environmentId: string): Promise<keys.SigningKeyRecord> {
  const found = await keys.findSigningKey(q, environmentId);
  if (found) return found;
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const id = randomUUID();
  await keys.insertSigningKeyIfAbsent(q, environmentId, {
    id,
    kid,
    alg: SIGNING_ALG,
    publicKeyPem: await exportSPKI(publicKey),
    publicJwk: { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, kid, alg: SIGNING_ALG, use: "sig" },
    privateKeySealed: deps.sealer.seal(await exportPKCS8(privateKey), signingKeyAad(id)),
  });
  return (await keys.findSigningKey(q, environmentId))!;
}

/** For the code that issues the environment's JWTs: the private key (never returned by the API). */
export async function environmentSigningKey(deps: Pick<Deps, "db" | "sealer">, environmentId: string): Promise<{ kid: string; alg: string; privateKey: CryptoKey }> {
  const k = await ensureSigningKey(deps, deps.db, environmentId);
  const pem = deps.sealer.open(k.privateKeySealed, signingKeyAad(k.id));
  return { kid: k.kid, alg: k.alg, privateKey: await importPKCS8(pem, k.alg) };
}
