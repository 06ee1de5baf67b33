import { DomainError, badRequest } from "../../errors.js";
import { MANAGEMENT_PERMISSIONS } from "../auth/permissions.js";

/**
 * The permissions a new token gets. None requested (undefined): everything the caller effectively has.
 * Requested: at least one (a token without permissions could do nothing, so an empty list is a mistake,
 * 400), each a known management permission (400 otherwise) that the caller has (403 otherwise: a token
 * never mints a stronger one, and silently dropping what was asked for would surprise the caller).
 */
export function grantedPermissions(requested: readonly string[] | undefined, callerPermissions: readonly string[]): string[] {
  if (requested === undefined) return MANAGEMENT_PERMISSIONS.filter((p) => callerPermissions.includes(p));
  if (requested.length === 0)
    throw badRequest("validation_error", "invalid request: permissions must have at least 1 item", {
      errors: [{ field: "permissions", message: "must have at least 1 item" }],
    });
  const unknown = requested.filter((p) => !MANAGEMENT_PERMISSIONS.includes(p));
  if (unknown.length) throw badRequest("invalid_permission", `unknown permissions: ${unknown.join(", ")}`, { field: "permissions", unknown });
  const exceeding = requested.filter((p) => !callerPermissions.includes(p));
  if (exceeding.length)
    throw new DomainError("forbidden", "permissions_exceed_caller", `a token cannot get permissions its creator lacks: ${exceeding.join(", ")}`, {
      permissions: exceeding,
    });
  return MANAGEMENT_PERMISSIONS.filter((p) => requested.includes(p));
}
