import { notFound } from "../../errors.js";
import { effectivePermissions } from "../../domain/auth/permissions.js";
import { accountAccess, type CallContext } from "../../domain/tenancy/access.js";
import { tokenCaller } from "../context.js";

/**
 * What the caller may do where it acts (used to cap the permissions of tokens it mints): an environment
 * token what it carries and its creator's role allows, a member token what it carries and the role it has
 * in the organization the call resolved to (`role`), or, at account level (role undefined), what it carries.
 */
export function callerPermissions(ctx: CallContext, role: string | null | undefined): string[] {
  const p = tokenCaller(ctx);
  if (p.kind === "api_token") return p.role ? effectivePermissions(p.permissions, p.role) : [...p.permissions];
  return role === undefined ? [...p.permissions] : effectivePermissions(p.permissions, role ?? "");
}

/**
 * Account-level calls that name a resource by id (an invite to the account, one of its tokens): an
 * environment token speaks for no account, so for it such a resource is not there (404, like another
 * tenant's id), rather than the 403 of account-level lists.
 */
export function accountResourceAccess(ctx: CallContext, what: string) {
  if (tokenCaller(ctx).kind !== "account_token") throw notFound(what);
  return accountAccess(ctx);
}
