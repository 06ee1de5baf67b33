import { DomainError, badRequest } from "../../errors.js";
import { MANAGEMENT_PERMISSIONS } from "../auth/permissions.js";

/**
 * The permissions a new token gets. None requested: everything the caller effectively has. Requested:
 * each must be a known management permission (400 otherwise) that the caller has (403 otherwise: a token
 * never mints a stronger one, and silently dropping what was asked for would surprise the caller).
 */
export function grantedPermissions(requested: readonly string[], callerPermissions: readonly string[]): string[] {
  if (requested.length === 0) return MANAGEMENT_PERMISSIONS.filter((p) => callerPermissions.includes(p));
  const unknown = requested.filter((p) => !MANAGEMENT_PERMISSIONS.includes(p));
  if (unknown.length) throw badRequest("invalid_permission", `unknown permissions: ${unknown.join(", ")}`, { field: "permissions", unknown });
  const exceeding = requested.filter((p) => !callerPermissions.includes(p));
  if (exceeding.length)
    throw new DomainError("forbidden", "permissions_exceed_caller", `a token cannot get permissions its creator lacks: ${exceeding.join(", ")}`, {
      permissions: exceeding,
    });
  return MANAGEMENT_PERMISSIONS.filter((p) => requested.includes(p));
}
