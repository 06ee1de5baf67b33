import { createPrivateKey, type KeyObject } from "node:crypto";
import { importSPKI, type CryptoKey } from "jose";
import type { JwsAlg } from "../../crypto/jws.js";
import * as keys from "../../db/repositories/environment-keys.js";
import type { Database } from "../../db/db.js";
import type { Sealer } from "../../crypto/seal.js";
import { ensureSigningKey, signingKeyAad } from "../environments/keys.js";
import { effectiveSettings, jwtLifetimeSeconds } from "../environments/settings.js";
import * as projects from "../../db/repositories/projects.js";
import { DomainError } from "../../errors.js";
import { isUuid } from "../../db/text-match.js";
import { ProcessCache } from "../../store/process-cache.js";
import { mfaPolicyOf, type MfaPolicy } from "../mfa/policy.js";

/** A verification key ready for jose: imported once per process, not per token. */
export interface ImportedKey {
  kid: string;
  alg: string;
  key: CryptoKey;
}

/** The environment's current private key, as node's crypto signs with it (src/crypto/jws.ts; jose takes it too). */
export interface SigningKey {
  kid: string;
  alg: JwsAlg;
  key: KeyObject;
}

/**
 * What an environment's sessions are given beyond identity: how long tokens live, which profile fields they
 * carry, and whether a sign-in must pass a second factor first.
 */
export interface TokenPolicy {
  lifetimeSeconds: number;
  /** The profile fields the environment collects (sdk.collectUserData), which its tokens carry. */
  collected: Set<string>;
  /** Whether sign-ins pass a second factor before their session gets its scope. */
  mfa: MfaPolicy;
}

interface EnvironmentKeys {
  signing: SigningKey;
  policy: TokenPolicy;
  /** The published keys (current and retired-but-live), by kid. */
  verifying: Map<string, ImportedKey>;
  loadedAt: number;
}

/** How long a process trusts its copy of an environment's keys before reading them again. */
const KEYS_TTL_MS = 30_000;
/** A token naming a kid we do not know re-reads the keys (a rotation elsewhere), at most this often. */
const MISS_RELOAD_MS = 1_000;

/**
 * The environment keys this process signs and verifies session tokens with, read from Postgres and imported
 * once, then kept for 30 s with the environment's token policy (lifetime, profile fields): a session check
 * never reads Postgres, and neither a sign-in nor a refresh reads the environment for its policy. A change
 * of the settings (or a rotation) in this process forgets both at once; other processes pick it up within
 * the TTL, or at once when a token names a kid they do not know yet (rate-limited, so a stream of made-up
 * kids cannot turn into a stream of reads). Retired keys stay until their published_until, so tokens
 * signed before a rotation keep verifying.
 */
export class Keyring {
  private readonly cache = new ProcessCache<EnvironmentKeys>(KEYS_TTL_MS);

  // Not Pick<Deps>: Deps holds the keyring, and the layer rules refuse the import circle.
  constructor(private readonly deps: { db: Database; sealer: Sealer }) {}

  async signingKey(environmentId: string): Promise<SigningKey> {
    return (await this.keysOf(environmentId)).signing;
  }

  /** The environment's token policy, read with its keys (a settings change here forgets both at once). */
  async policy(environmentId: string): Promise<TokenPolicy> {
    return (await this.keysOf(environmentId)).policy;
  }

  /** The key a token's header names, or undefined when the environment publishes no such key. */
  async verifyingKey(environmentId: string, kid: string): Promise<ImportedKey | undefined> {
    const k = await this.keysOf(environmentId);
    const found = k.verifying.get(kid);
    if (found || Date.now() - k.loadedAt < MISS_RELOAD_MS) return found;
    this.cache.forget(environmentId);
    return (await this.keysOf(environmentId)).verifying.get(kid);
  }

  /** Forget an environment's keys (after rotating them here). */
  forget(environmentId: string): void {
    this.cache.forget(environmentId);
  }

  private keysOf(environmentId: string): Promise<EnvironmentKeys> {
    // Whatever a caller names reaches here before it is a known environment: an id that cannot be one is
    // not looked up (the column is a uuid, and a cast error would be a 500).
    if (!isUuid(environmentId)) return Promise.reject(new DomainError("not_found", "not_found", "environment not found"));
    return this.cache.get(environmentId, (id) => this.load(id));
  }

  private async load(environmentId: string): Promise<EnvironmentKeys> {
    const env = await projects.findEnvironmentRecord(this.deps.db, environmentId);
    if (!env) throw new DomainError("not_found", "not_found", "environment not found");
    const current = await ensureSigningKey(this.deps, this.deps.db, environmentId);
    const published = await keys.findPublishedKeys(this.deps.db, environmentId);
    const verifying = new Map<string, ImportedKey>();
    for (const k of published) verifying.set(k.kid, { kid: k.kid, alg: k.alg, key: await importSPKI(k.publicKeyPem, k.alg) });
    const pem = this.deps.sealer.open(current.privateKeySealed, signingKeyAad(current.id));
    const signing: SigningKey = { kid: current.kid, alg: current.alg as JwsAlg, key: createPrivateKey(pem) };
    return { signing, verifying, policy: tokenPolicyOf(env.settings), loadedAt: Date.now() };
  }
}

function tokenPolicyOf(settings: Record<string, unknown>): TokenPolicy {
  const s = effectiveSettings(settings);
  const collect = (s.sdk.collectUserData ?? {}) as Record<string, { enabled?: boolean }>;
  return {
    lifetimeSeconds: jwtLifetimeSeconds(s.security),
    collected: new Set(Object.entries(collect).filter(([, f]) => f?.enabled).map(([k]) => k)),
    mfa: mfaPolicyOf(settings),
  };
}
