import type { Interceptor } from "@connectrpc/connect";
import { AuthMode } from "../../gen/sigil/options/v0/options_pb.js";
import { DomainError } from "../../errors.js";
import { authenticateApiToken } from "../../domain/auth/api-token-auth.js";
import { effectivePermissions, hasPermission } from "../../domain/auth/permissions.js";
import type { Deps } from "../../domain/deps.js";
import { principalKey } from "../context.js";
import { authModeOf, methodRules } from "../method-options.js";

/**
 * Establishes the caller from the RPC's declared auth mode, then checks the permission the RPC declares.
 * Handlers can rely on an API-token principal for every method that does not opt out.
 */
export function authnInterceptor(deps: Pick<Deps, "db" | "store">): Interceptor {
  return (next) => async (req) => {
    // Only Sigil's own services authenticate here; grpc.health and reflection are public by design.
    if (!req.service.typeName.startsWith("sigil.") || authModeOf(req.method) === AuthMode.NONE) return next(req);
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
