import { notFound } from "../../errors.js";
import * as projects from "../../db/repositories/projects.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { externalAuthSettingsOf, verifyExternalJwt } from "./verify.js";

export interface ExternalJwtCheck {
  valid: boolean;
  errors: string[];
}

/**
 * Would the environment accept this token of its external identity provider at sign-in? The same check as
 * sign-in (verify.ts), plus whether external sign-in is on. Changes nothing; every reason is listed.
 */
export async function checkExternalJwt(deps: Deps, access: EnvironmentAccess, encodedJwt: string): Promise<ExternalJwtCheck> {
  const env = await projects.findEnvironmentRecord(deps.db, access.environmentId);
  if (!env) throw notFound("environment");
  const settings = externalAuthSettingsOf(env.settings);
  const errors: string[] = [];
  if (!settings.enabled) errors.push("external JWT authentication is not enabled for this environment");
  const verdict = await verifyExternalJwt(settings, encodedJwt, {
    environmentId: access.environmentId,
    environmentName: access.environmentName,
    ...deps.config.externalSignIn,
  });
  if ("errors" in verdict) errors.push(...verdict.errors);
  return { valid: errors.length === 0, errors };
}
