import { notFound } from "../../errors.js";
import * as projects from "../../db/repositories/projects.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { DEFAULT_SIGNING_ALG, ensureSigningKey, rotateSigningKey, type SigningAlg } from "./keys.js";
import { checkSettings, effectiveSettings, jwtLifetimeSeconds, type SettingsDocument } from "./settings.js";
import { applySettingsUpdate, type SettingsPath } from "./update.js";

type Page = { offset: number; limit: number };

export interface EnvironmentView extends Omit<projects.EnvironmentRecord, "settings"> {
  settings: Required<SettingsDocument>;
}

const view = (e: projects.EnvironmentRecord): EnvironmentView => ({ ...e, settings: effectiveSettings(e.settings) });

export async function listProjectEnvironments(deps: Deps, organizationId: string, projectId: string, page: Page) {
  const r = await projects.listProjectEnvironments(deps.db, organizationId, projectId, page);
  return { environments: r.environments.map(view), count: r.count };
}

export async function getEnvironment(deps: Deps, access: EnvironmentAccess): Promise<EnvironmentView> {
  const e = await projects.findEnvironmentRecord(deps.db, access.environmentId);
  if (!e) throw notFound("environment");
  return view(e);
}

/** Changes the settings `paths` name to their values in `update`; everything else stays as it is. */
export async function updateEnvironmentSettings(
  deps: Deps,
  access: EnvironmentAccess,
  update: SettingsDocument,
  paths: readonly SettingsPath[],
): Promise<EnvironmentView> {
  return audited(deps, access, async (t, record) => {
    const before = await projects.findEnvironmentRecord(t, access.environmentId, { forUpdate: true });
    if (!before) throw notFound("environment");
    const stored = applySettingsUpdate(before.settings as SettingsDocument, update, paths);
    checkSettings(stored);
    const merged = effectiveSettings(stored);
    const after = await projects.updateEnvironmentSettings(t, access.environmentId, stored);
    await rotateKeyOnNewAlgorithm(deps, t, access.environmentId, effectiveSettings(before.settings).security, merged.security);
    await record({
      action: "environment.updated",
      resourceType: "environment",
      resourceId: access.environmentId,
      before: { settings: effectiveSettings(before.settings) },
      after: { settings: merged },
    });
    return view(after);
  }, { lockOrganization: "key share" }).finally(() => deps.sessionKeys.forget(access.environmentId));
}

/**
 * Choosing another signing algorithm (security.jwtSigningAlgorithm) rotates the environment's key: new
 * tokens are signed with a new key of that algorithm, and the old key stays published for as long as a
 * token it signed can live (the lifetime in force before the change).
 */
async function rotateKeyOnNewAlgorithm(deps: Deps, t: Parameters<typeof ensureSigningKey>[1], environmentId: string, before: Record<string, unknown>, after: Record<string, unknown>) {
  const wanted = (after.jwtSigningAlgorithm as SigningAlg | undefined) || DEFAULT_SIGNING_ALG;
  const current = await ensureSigningKey(deps, t, environmentId);
  if (current.alg === wanted) return;
  await rotateSigningKey(deps, t, environmentId, wanted, jwtLifetimeSeconds(before));
}

/** The public half of the environment's JWT signing key (made on first use for older environments). */
export async function getEnvironmentKey(deps: Deps, access: EnvironmentAccess) {
  const k = await ensureSigningKey(deps, deps.db, access.environmentId);
  return { kid: k.kid, alg: k.alg, publicKey: k.publicKeyPem, jwk: k.publicJwk, createdAt: k.createdAt };
}
