import { randomUUID } from "node:crypto";
import type { TestApp } from "./app.js";
import { signInWith } from "../../src/domain/sign-in/pipeline.js";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";

/**
 * A signed-in end user for tests whose subject is not sign-in itself: signs in through the domain's
 * sign-in pipeline with a fresh e-mail (as a verified code would), returning the session's JWT.
 */
export async function signInAs(app: TestApp, environmentId: string, email = `end-user-${randomUUID()}@example.com`) {
  const env = await findEnvironmentTenant(app.db, environmentId, null);
  if (!env) throw new Error(`no environment ${environmentId}`);
  const r = await signInWith(
    app.deps,
    { environmentId, environmentName: env.name, projectId: env.projectId, organizationId: env.organizationId },
    { kind: "email", email },
    { ipAddress: "127.0.0.1", userAgent: "test", requestId: "" },
  );
  return { jwt: r.tokens.jwt, minifiedJwt: r.tokens.minifiedJwt, sessionId: r.tokens.sessionId, userId: r.user.user.id, email, expiresAt: r.tokens.expiresAt };
}
