import { badRequest } from "../../errors.js";

/**
 * What an allowlist or a gate does to the users it matches: siteAccess (only they may sign in), scope (they
 * get `scope` in their JWT) or block (they may not sign in); the proto declares the values. A scope outcome
 * needs the scope it grants.
 */
export function checkOutcome(outcome: string, scope: string | null): void {
  if (outcome === "scope" && !scope) throw badRequest("scope_required", "scope is required when the outcome is scope", { field: "scope" });
}

/** An update may rename, but not to nothing (the field rules skip empty strings). */
export function checkName(name: string | undefined): void {
  if (name !== undefined && name.trim() === "") throw badRequest("name_required", "name must not be empty", { field: "name" });
}
