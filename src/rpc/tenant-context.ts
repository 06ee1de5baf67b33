import { createContextKey, type ContextKey } from "@connectrpc/connect";
import type { AccountAccess, EnvironmentAccess, OrganizationAccess, ProjectAccess, PublicEnvironment } from "../domain/tenancy/access.js";

/**
 * The tenant of the current call, resolved and checked once by the tenancy interceptor from the tenant the
 * RPC declares. Handlers read it here and never resolve it themselves. An environment also fills its
 * project and organization, a project its organization.
 */
export interface Tenancy {
  environment?: EnvironmentAccess;
  project?: ProjectAccess;
  organization?: OrganizationAccess;
  account?: AccountAccess;
  publicEnvironment?: PublicEnvironment;
}

export const tenancyKey = createContextKey<Tenancy | null>(null, { description: "tenant of the call" });

type Ctx = { values: { get<T>(key: ContextKey<T>): T } };

/** Everything resolved for the call (for the few RPCs whose tenant depends on the caller's kind). */
export function tenancyOf(ctx: Ctx): Tenancy {
  const t = ctx.values.get(tenancyKey);
  if (!t) throw new Error("handler reached without the tenancy interceptor");
  return t;
}

function required<K extends keyof Tenancy>(ctx: Ctx, key: K): NonNullable<Tenancy[K]> {
  const value = tenancyOf(ctx)[key];
  // A handler asking for a scope its RPC does not declare: a programming error, never a caller's.
  if (!value) throw new Error(`the RPC declares no ${key} tenant`);
  return value as NonNullable<Tenancy[K]>;
}

export const environmentOf = (ctx: Ctx): EnvironmentAccess => required(ctx, "environment");
export const projectOf = (ctx: Ctx): ProjectAccess => required(ctx, "project");
export const organizationOf = (ctx: Ctx): OrganizationAccess => required(ctx, "organization");
export const accountOf = (ctx: Ctx): AccountAccess => required(ctx, "account");
export const publicEnvironmentOf = (ctx: Ctx): PublicEnvironment => required(ctx, "publicEnvironment");
