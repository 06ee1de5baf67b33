import { ScalarType, type DescField, type DescMethod } from "@bufbuild/protobuf";
import { TenantScope, type TenantRule } from "../gen/sigil/options/v0/options_pb.js";
import { ENVIRONMENT_SCOPED_TABLES, ORGANIZATION_SCOPED_TABLES } from "../db/repositories/tenant-access.js";
import { methodRules } from "./method-options.js";

/**
 * The tenant an RPC declares (sigil.options.v0.method tenant), checked and resolved to request fields once
 * per method. A declaration that is missing or names something that does not exist is an error here, so the
 * tenancy interceptor fails closed and test/rpc/tenant-rules.test.ts fails for every such method.
 */
export type TenantPlan =
  | {
      scope: "environment" | "project" | "organization";
      /** The request field with the scope's id (absent: the resource alone decides). */
      field?: DescField;
      /** A resource named by id: used when `field` is absent or empty (deprecated short paths). */
      resource?: { table: string; field: DescField };
    }
  /** `field`: the call names one of the account's own resources (environment tokens get 404, not 403). */
  | { scope: "account"; field?: DescField }
  | { scope: "public"; field: DescField }
  | { scope: "service" }
  | { scope: "caller" };

const SCOPES: Record<TenantScope, TenantPlan["scope"] | null> = {
  [TenantScope.UNSPECIFIED]: null,
  [TenantScope.ENVIRONMENT]: "environment",
  [TenantScope.PROJECT]: "project",
  [TenantScope.ORGANIZATION]: "organization",
  [TenantScope.ACCOUNT]: "account",
  [TenantScope.PUBLIC]: "public",
  [TenantScope.SERVICE]: "service",
  [TenantScope.CALLER]: "caller",
};

/** Tables a resource of each scope may be looked up in. */
const RESOURCE_TABLES: Partial<Record<TenantPlan["scope"], ReadonlySet<string>>> = {
  environment: ENVIRONMENT_SCOPED_TABLES,
  organization: ORGANIZATION_SCOPED_TABLES,
};

const cache = new WeakMap<DescMethod, TenantPlan>();

/** The checked plan of a method; throws (naming the method) when its declaration is missing or wrong. */
export function tenantPlanOf(method: DescMethod): TenantPlan {
  let plan = cache.get(method);
  if (!plan) cache.set(method, (plan = checkTenantRule(method, methodRules(method).tenant)));
  return plan;
}

/** The plan a rule makes for a method's request, or an error saying what is wrong with the rule. */
export function checkTenantRule(method: DescMethod, rule: TenantRule | undefined): TenantPlan {
  const where = `${method.parent.typeName}.${method.name}`;
  const fail = (why: string): never => {
    throw new Error(`${where}: tenant ${why} (proto/sigil/options/v0/options.proto TenantRule)`);
  };
  const scope = rule ? SCOPES[rule.scope] : null;
  if (!rule || !scope) return fail("not declared");
  const idField = (name: string): DescField => {
    const f = method.input.fields.find((x) => x.name === name);
    if (!f) return fail(`field ${name} is not a field of ${method.input.typeName}`);
    if (f.fieldKind !== "scalar" || f.scalar !== ScalarType.STRING) return fail(`field ${name} is not a string`);
    return f;
  };
  const tables = RESOURCE_TABLES[scope];
  if (rule.resource && !tables?.has(rule.resource)) fail(`resource ${rule.resource} is not a table of the ${scope} scope`);
  if (!rule.resource !== !rule.resourceField) fail("resource and resource_field go together");
  switch (scope) {
    case "environment":
    case "project":
    case "organization": {
      const name = rule.field || (rule.resource ? "" : `${scope}_id`);
      return {
        scope,
        field: name ? idField(name) : undefined,
        resource: rule.resource ? { table: rule.resource, field: idField(rule.resourceField) } : undefined,
      };
    }
    case "account":
      return { scope, field: rule.field ? idField(rule.field) : undefined };
    case "public":
      return { scope, field: idField(rule.field || "environment_id") };
    default:
      if (rule.field) fail(`scope ${scope} names no field`);
      return { scope };
  }
}
