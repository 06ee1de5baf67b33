import type { ContextKey } from "@connectrpc/connect";
import { effectivePermissions } from "../../domain/auth/permissions.js";
import { tokenCaller } from "../context.js";

/**
 * What the caller may do where it acts (used to cap the permissions of tokens it mints): an environment
 * token what it carries and its creator's role allows, a member token what it carries and the role it has
 * in the organization the call resolved to (`role`), or, at account level (role undefined), what it carries.
 */
export function callerPermissions(ctx: { values: { get<T>(key: ContextKey<T>): T } }, role: string | null | undefined): string[] {
  const p = tokenCaller(ctx);
  if (p.kind === "api_token") return p.role ? effectivePermissions(p.permissions, p.role) : [...p.permissions];
  return role === undefined ? [...p.permissions] : effectivePermissions(p.permissions, role ?? "");
}
