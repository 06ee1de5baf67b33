import { setTimeout as sleep } from "node:timers/promises";
import type { Sealer } from "../../crypto/seal.js";
import type { Database } from "../../db/db.js";
import * as keys from "../../db/repositories/environment-keys.js";
import * as projects from "../../db/repositories/projects.js";
import { notFound } from "../../errors.js";
import { recordChange } from "../audit/audit.js";
import type { Actor } from "../tenancy/access.js";
import { ensureSigningKey, rotateSigningKey, type SigningAlg } from "./keys.js";
import { effectiveSettings, jwtLifetimeSeconds } from "./settings.js";

/**
 * `sessionMaxAgeSeconds` (SIGIL_SESSION_MAX_AGE_SECONDS) bounds every token's life whatever the environment's
 * token lifetime was when it was issued (a token lives min(lifetime, max age)): a retired key stays published
 * that long, or the environment's current lifetime when that is shorter and has not been changed since the key
 * was made.
 */
type RotationDeps = { db: Database; sealer: Sealer; sessionMaxAgeSeconds: number };

/** Something new in the audit trail only: a rotation changes no resource a webhook subscriber knows. */
const ROTATED = "environment.signing_key_rotated";

/** What rotating one environment's signing key did. */
export interface SigningKeyRotation {
  environmentId: string;
  /** The key that signed until now (null: the environment had none; it has one now). */
  retiredKid: string | null;
  /** Until when the retired key stays in the JWKS: when the last token it signed expires. */
  publishedUntil: Date | null;
  /** The key that signs new tokens from now on. */
  kid: string;
  /** Retired keys whose tokens had all expired, dropped now. */
  expiredKeysDropped: number;
}

/**
 * Makes a new signing key (same algorithm) the environment's current one. The retired key stays published
 * for as long as a token it signed can live (see RotationDeps), so sessions issued before keep verifying;
 * retired keys past that are dropped. One transaction, with the environment row locked, so
 * that a settings change (which may rotate too, to another algorithm) waits for it. Other api processes pick
 * the new key up within their key cache's lifetime (30 s) and verify its tokens at once (an unknown kid
 * reloads the keys).
 */
export async function rotateEnvironmentSigningKey(deps: RotationDeps, environmentId: string, actor: Actor): Promise<SigningKeyRotation> {
  return deps.db.tx(async (t) => {
    const env = await projects.findEnvironmentRecord(t, environmentId, { forUpdate: true });
    if (!env) throw notFound("environment");
    const expiredKeysDropped = await keys.deleteExpiredSigningKeys(t, environmentId);
    const current = await keys.findSigningKey(t, environmentId);
    let rotation: SigningKeyRotation;
    if (!current) {
      const created = await ensureSigningKey(deps, t, environmentId);
      rotation = { environmentId, retiredKid: null, publishedUntil: null, kid: created.kid, expiredKeysDropped };
    } else {
      // The environment's lifetime bounds the tokens only if it has not been longer since the key was made.
      const lifetime = env.updatedAt <= current.createdAt ? jwtLifetimeSeconds(effectiveSettings(env.settings).security) : Infinity;
      const keepPublishedSeconds = Math.min(lifetime, deps.sessionMaxAgeSeconds);
      await rotateSigningKey(deps, t, environmentId, current.alg as SigningAlg, keepPublishedSeconds);
      const published = await keys.findPublishedKeys(t, environmentId);
      const next = published.find((k) => k.retiredAt === null)!;
      const retired = published.find((k) => k.id === current.id);
      rotation = { environmentId, retiredKid: current.kid, publishedUntil: retired?.publishedUntil ?? null, kid: next.kid, expiredKeysDropped };
    }
    const access = { organizationId: env.organizationId, environmentId, role: null, actor };
    await recordChange(t, access, { action: ROTATED, resourceType: "environment", resourceId: environmentId, after: { kid: rotation.kid, retiredKid: rotation.retiredKid, publishedUntil: rotation.publishedUntil } });
    return rotation;
  });
}

export interface RotateAllOptions {
  actor: Actor;
  /** Rotate the environments whose current key was made before this instant (a rerun passes the same one). */
  createdBefore: Date;
  batchSize: number;
  pauseMs?: number;
  onRotated?: (r: SigningKeyRotation) => void;
}

/**
 * Rotates the key of every environment whose current key predates `createdBefore`, a batch of environments
 * at a time, each in its own transaction. A rotated environment's key is newer than `createdBefore`, so a run
 * that stopped half-way resumes where it was when run again with the same instant: nothing is rotated twice.
 */
export async function rotateAllSigningKeys(deps: RotationDeps, opts: RotateAllOptions): Promise<SigningKeyRotation[]> {
  const done: SigningKeyRotation[] = [];
  let after: string | null = null;
  for (;;) {
    const batch = await keys.environmentsWithKeyCreatedBefore(deps.db, opts.createdBefore, after, opts.batchSize);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!;
    for (const environmentId of batch) {
      const r = await rotateEnvironmentSigningKey(deps, environmentId, opts.actor);
      done.push(r);
      opts.onRotated?.(r);
    }
    if (batch.length < opts.batchSize) break;
    if (opts.pauseMs) await sleep(opts.pauseMs);
  }
  return done;
}

/** How many environments a rotation started at `createdBefore` has still to rotate. */
export const signingKeysToRotate = (deps: Pick<RotationDeps, "db">, createdBefore: Date) => keys.countEnvironmentsWithKeyCreatedBefore(deps.db, createdBefore);
