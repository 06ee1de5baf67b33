import { create, type DescMethod } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AuthMode, TenantRuleSchema, TenantScope } from "../../src/gen/sigil/options/v0/options_pb.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { authModeOf } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";
import { checkTenantRule, tenantPlanOf } from "../../src/rpc/tenant-rules.js";

/**
 * Every RPC declares its tenant next to its permission (TenantRule in options.proto) and the tenancy
 * interceptor is the only place that resolves it. This walks every method of every registered service, so
 * a new RPC that forgets its tenant, or names a field or table that does not exist, fails here (and would
 * answer 500 at run time: the interceptor fails closed). grpc.health and reflection are not Sigil services
 * and are public by construction; the interceptor passes them by their package.
 */
const methods: DescMethod[] = apiServices.flatMap((s) => s.methods);
const name = (m: DescMethod) => `${m.parent.typeName}.${m.name}`;
const TENANT_ID_FIELDS = ["environment_id", "project_id", "organization_id"];

describe("tenant declarations", () => {
  it("walks every method of every registered Sigil service", () => {
    expect(methods.length).toBeGreaterThan(150);
    expect(apiServices.filter((s) => !s.typeName.startsWith("sigil.")).map((s) => s.typeName)).toEqual([]);
  });

  it("every method declares a tenant whose fields exist on its request and whose table is allowed", () => {
    const failures: string[] = [];
    for (const m of methods) {
      try {
        tenantPlanOf(m);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    expect(failures).toEqual([]);
  });

  it("public scope exactly on the SDK's methods: without credentials or with an end user's session", () => {
    const sdk = (m: (typeof methods)[number]) => authModeOf(m) === AuthMode.NONE || authModeOf(m) === AuthMode.END_USER;
    const mismatched = methods.filter((m) => (tenantPlanOf(m).scope === "public") !== sdk(m)).map(name);
    expect(mismatched).toEqual([]);
  });

  it("a request carrying a tenant id declares it as its tenant (never service-wide, caller or account scope)", () => {
    const failures: string[] = [];
    for (const m of methods) {
      const carried = m.input.fields.filter((f) => TENANT_ID_FIELDS.includes(f.name)).map((f) => f.name);
      if (carried.length === 0) continue;
      const plan = tenantPlanOf(m);
      const declared = "field" in plan ? plan.field?.name : undefined;
      if (!declared || !carried.includes(declared)) failures.push(`${name(m)}: carries ${carried.join(", ")}, declares ${plan.scope} ${declared ?? "-"}`);
    }
    expect(failures).toEqual([]);
  });

  describe("the checker refuses", () => {
    const getUser = UsersService.method.getUser;
    const rule = (init: Parameters<typeof create<typeof TenantRuleSchema>>[1]) => create(TenantRuleSchema, init);
    it("a method that declares nothing", () => {
      expect(() => checkTenantRule(getUser, undefined)).toThrow(/not declared/);
      expect(() => checkTenantRule(getUser, rule({ scope: TenantScope.UNSPECIFIED }))).toThrow(/not declared/);
    });
    it("a field its request does not have", () => {
      expect(() => checkTenantRule(getUser, rule({ scope: TenantScope.PROJECT }))).toThrow(/project_id is not a field/);
      expect(() => checkTenantRule(getUser, rule({ scope: TenantScope.ENVIRONMENT, field: "environmentId" }))).toThrow(/not a field/);
    });
    it("a table outside the allowed sets, or of the other scope", () => {
      const resource = (scope: TenantScope, table: string) => rule({ scope, resource: table, resourceField: "user_id" });
      expect(() => checkTenantRule(getUser, resource(TenantScope.ENVIRONMENT, "accounts"))).toThrow(/not a table/);
      expect(() => checkTenantRule(getUser, resource(TenantScope.ENVIRONMENT, "members"))).toThrow(/not a table/);
      expect(() => checkTenantRule(getUser, resource(TenantScope.ORGANIZATION, "users"))).toThrow(/not a table/);
      expect(() => checkTenantRule(getUser, resource(TenantScope.PROJECT, "users"))).toThrow(/not a table/);
      expect(() => checkTenantRule(getUser, rule({ scope: TenantScope.ENVIRONMENT, resource: "users" }))).toThrow(/go together/);
    });
    it("while the declared rule of GetUser resolves to its fields", () => {
      const plan = tenantPlanOf(getUser);
      expect(plan).toMatchObject({ scope: "environment", field: { name: "environment_id" }, resource: { table: "users", field: { name: "user_id" } } });
    });
  });
});
