import type { Interceptor } from "@connectrpc/connect";
import { AuthMode } from "../../gen/sigil/options/v0/options_pb.js";
import { DomainError } from "../../errors.js";
import { authenticateApiToken } from "../../domain/auth/api-token-auth.js";
import { effectivePermissions, hasPermission } from "../../domain/auth/permissions.js";
import type { Deps } from "../../domain/deps.js";
import { principalKey } from "../context.js";
import { authModeOf, methodRules } from "../method-options.js";
import { tenantPlanOf } from "../tenant-rules.js";
import { validateStringField, validationError } from "../validation.js";
import { authenticateEndUser } from "../../domain/sessions/service.js";
import { awaitsSecondFactor, mfaRequired } from "../../domain/sessions/tokens.js";

/**
 * Establishes the caller from the RPC's declared auth mode, then checks the permission the RPC declares.
 * Handlers can rely on an API-token principal for every method that does not opt out.
 */
export function authnInterceptor(deps: Pick<Deps, "db" | "store" | "sessionVerifier">): Interceptor {
  return (next) => async (req) => {
    // Only Sigil's own services authenticate here; grpc.health and reflection are public by design.
    if (!req.service.typeName.startsWith("sigil.")) return next(req);
    const mode = authModeOf(req.method);
    if (mode === AuthMode.NONE) return next(req);
    if (mode === AuthMode.END_USER) {
      // The token must be one of the environment the request names (its declared public tenant field).
      const plan = tenantPlanOf(req.method);
      if (plan.scope !== "public" || req.stream) throw new Error(`${req.method.name}: end-user methods are unary and name a public environment`);
      const environmentId = String((req.message as unknown as Record<string, unknown>)[plan.field.localName] ?? "");
      // The session is verified with this environment's keys, so the id is checked before anything reads
      // them: a malformed one is the 400 the validation interceptor would give, never a lookup.
      const violations = validateStringField(plan.field, environmentId);
      if (violations.length) throw validationError(violations);
      const rules = methodRules(req.method);
      const endUser = await authenticateEndUser(deps, environmentId, req.header.get("authorization"), {
        liveness: rules.sessionCheckedByHandler ? "handler" : "store",
      });
      if (awaitsSecondFactor(endUser.scope) && !rules.mfaPendingAllowed)
        throw mfaRequired("this session must pass its second factor first (the MFA operations)");
      req.contextValues.set(principalKey, endUser);
      return next(req);
    }
    const principal = await authenticateApiToken(deps, req.header.get("authorization"));
    const needed = methodRules(req.method).permission;
    // Environment tokens are capped by their creator's current role; account tokens by the token here and
    // by the member's role in the organization a call names (src/rpc/interceptors/tenancy.ts).
    const granted =
      principal.kind === "api_token" && principal.role ? effectivePermissions(principal.permissions, principal.role) : principal.permissions;
    if (!hasPermission(granted, needed))
      throw new DomainError("forbidden", "forbidden", `this token lacks the permission ${needed}`);
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
}
