import * as projects from "../../db/repositories/projects.js";
import { DomainError, notFound } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import { spendOnce } from "../spent-credentials/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { externalAuthSettingsOf, verifyExternalJwt } from "./verify.js";
import { canonicalEmail } from "../verifications/email.js";
import { observedSignIn } from "../sign-in/observed.js";

/** Signs in the user whose external user id is the token's subject, or creates them with it. */
export async function signInWithExternalJwt(deps: Deps, env: PublicEnvironment, jwt: string, meta: ClientMeta): Promise<SignInResult> {
  return observedSignIn(deps, "external_jwt", async () => {
    return signInWith(deps, env, await proveExternalJwt(deps, env, jwt), meta);
  });
}

/** Names the token's subject on the signed-in user (another user's subject: 422, as every link). */
export async function linkExternalJwt(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, jwt: string, meta: ClientMeta) {
  return linkCredential(deps, env, principal, await proveExternalJwt(deps, env, jwt), meta);
}

/**
 * The token must pass the environment's external-auth settings (verify.ts), which must be on. A token is
 * used once: it is a bearer credential that a log or a proxy may have seen, and a client that signs in
 * again asks its provider for a new one (they are short-lived). Of two requests with one token, one wins.
 */
async function proveExternalJwt(deps: Deps, env: PublicEnvironment, jwt: string): Promise<ProvenCredential> {
  const record = await projects.findEnvironmentRecord(deps.db, env.environmentId);
  if (!record) throw notFound("environment");
  const settings = externalAuthSettingsOf(record.settings);
  if (!settings.enabled) throw new DomainError("forbidden", "sign_in_method_disabled", "sign-in with an external JWT is not enabled in this environment");
  const verdict = await verifyExternalJwt(settings, jwt, {
    environmentId: env.environmentId,
    environmentName: env.environmentName,
    ...deps.config.externalSignIn,
  });
  if ("errors" in verdict)
    throw new DomainError("unauthenticated", "invalid_external_jwt", `the external JWT is not accepted: ${verdict.errors.join("; ")}`, { errors: verdict.errors });
  const { payload } = verdict;
  // Spent in Postgres, not the store: a restart or a Redis that forgets must not let it sign in again.
  if (!(await spendOnce(deps.db, env.environmentId, "external_jwt", jwt, payload.exp!)))
    throw new DomainError("unauthenticated", "external_jwt_replayed", "this external JWT was already used: get a new one from the identity provider");
  // The environment's own identity provider vouches for the address unless it says it has not verified it.
  const email = typeof payload.email === "string" && payload.email_verified !== false ? (canonicalEmail(payload.email) ?? undefined) : undefined;
  return { kind: "external", externalUserId: payload.sub, ...(email ? { email } : {}) };
}
