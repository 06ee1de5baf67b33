import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGEMENT_PERMISSIONS } from "../../src/domain/auth/permissions.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { buildRoutes, type Route } from "../../src/gateway/rules.js";
import { AuthMode } from "../../src/gen/sigil/options/v0/options_pb.js";
import { authModeOf, fieldRules, methodRules } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { seedTenant, type SeededIds } from "./support/seed-tenant.js";

/**
 * Walks every management operation (every REST binding of every Sigil RPC) and checks the tenancy rules
 * that must hold for all of them: no token is 401; another tenant's environment token and a member token
 * of an account that is not a member both get 404 (for operations that name a tenant or a resource) and
 * change nothing of the first tenant's data.
 */

const routes = buildRoutes(apiServices).filter((r) => r.service.typeName.startsWith("sigil.") && !r.template.startsWith("/api/v0/sdk/"));

/** Path variables that name no tenant resource (a chain of /chains/{chain_name}/tokens is global data). */
const GLOBAL_VARIABLES = new Set(["chain_name"]);

/** Operations that name no tenant and no resource: they act on the caller's own account or are global. */
const isAccountLevel = (r: Route) => !r.segments.some((s) => s.kind === "variable" && !GLOBAL_VARIABLES.has(s.fieldPath));

let app: TestApp;
let a: BootstrapResult;
let b: BootstrapResult;
let ids: SeededIds;

beforeAll(async () => {
  app = await startTestApp();
  a = await app.bootstrap({ ownerEmail: `a-${randomUUID()}@example.com` });
  b = await app.bootstrap({ ownerEmail: `b-${randomUUID()}@example.com` });
  ids = await seedTenant(app, a);
}, 60_000);
afterAll(() => app?.stop());

const UUID_PARAMS: Record<string, (t: BootstrapResult) => string> = {
  environment_id: (t) => t.environmentId,
  organization_id: (t) => t.organizationId,
  project_id: (t) => t.projectId,
  member_id: (t) => t.memberId,
  token_id: (t) => t.tokenId,
};

/** The value of a path variable: the first tenant's real id where we have one, else a plausible value. */
function paramValue(r: Route, fieldPath: string): string {
  const field = r.method.input.fields.find((f) => f.name === fieldPath);
  const rules = field && fieldRules(field);
  if (UUID_PARAMS[fieldPath]) return UUID_PARAMS[fieldPath]!(a);
  if (ids[fieldPath]) return ids[fieldPath]!;
  if (rules?.allowed.length) return rules.allowed[0]!;
  if (rules?.uuid) return randomUUID();
  return "EVM";
}

/** A body that passes the declared field rules, so that the call reaches the tenancy check. */
function bodyFor(message: DescMessage, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 3) return out;
  for (const f of message.fields) {
    const rules = fieldRules(f);
    if (!rules?.required) continue;
    out[f.jsonName] = sample(f, rules, depth);
  }
  return out;
}

function sample(f: DescField, rules: NonNullable<ReturnType<typeof fieldRules>>, depth: number): unknown {
  if (f.fieldKind === "list") {
    if (f.listKind === "message") return [bodyFor(f.message, depth + 1)];
    return [scalarSample(f.name, rules)];
  }
  if (f.fieldKind === "message") return bodyFor(f.message, depth + 1);
  if (f.fieldKind === "scalar" && f.scalar !== 9 /* STRING */) return f.scalar === 8 /* BOOL */ ? true : 1;
  return scalarSample(f.name, rules);
}

function scalarSample(name: string, rules: NonNullable<ReturnType<typeof fieldRules>>): string {
  if (rules.allowed.length) return rules.allowed[0]!;
  if (rules.uuid) return UUID_PARAMS[name]?.(a) ?? ids[name] ?? randomUUID();
  if (rules.email) return `matrix-${randomUUID().slice(0, 8)}@example.com`;
  if (rules.url) return "https://example.com/x";
  return "x".repeat(Math.max(rules.minLen, 1));
}

function pathFor(r: Route): string {
  const full = "/" + r.segments.map((s) => (s.kind === "literal" ? s.value : paramValue(r, s.fieldPath))).join("/");
  return full.replace(/^\/+api\/v0/, "");
}

function requestFor(r: Route) {
  let body: unknown = undefined;
  if (r.body === "*") body = bodyFor(r.method.input);
  else if (r.body) {
    // The body fills one field (e.g. a list of users to bulk-create): send that field's value alone.
    const f = r.method.input.fields.find((x) => x.name === r.body)!;
    const rules = fieldRules(f);
    body = rules ? sample(f, rules, 0) : f.fieldKind === "list" ? [f.listKind === "message" ? bodyFor(f.message, 1) : "x"] : bodyFor(f.message!, 1);
  }
  return { path: pathFor(r), body };
}

/** Everything stored for the first tenant: each table's rows of its organization or environments. */
async function fingerprint(): Promise<string> {
  const tables = await app.db.any<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND column_name IN ('environment_id', 'organization_id') ORDER BY table_name, column_name`,
  );
  const envs = [a.environmentId, a.liveEnvironmentId];
  const parts: string[] = [];
  for (const t of tables) {
    // last_used_at moves on every authenticated call of the tenant's own token; it is not a change.
    const row = await app.db.one(
      `SELECT count(*) AS n, md5(coalesce(string_agg(to_jsonb(x)::text, ',' ORDER BY to_jsonb(x)::text), '')) AS h
       FROM (SELECT * FROM ${t.table_name} WHERE ${t.column_name} = ANY($1::uuid[])) x`,
      [t.column_name === "environment_id" ? envs : [a.organizationId]],
    );
    parts.push(`${t.table_name}.${t.column_name}:${row.n}:${row.h}`);
  }
  return parts.join("\n");
}

describe("every management operation", () => {
  it("is routed: operations.md's management rows all have a REST binding", () => {
    const spec = readFileSync(path.resolve(import.meta.dirname, "../../docs/spec/operations.md"), "utf8");
    const rows = spec
      .split("\n")
      .map((l) => l.split("|").map((c) => c.trim()))
      .filter((c) => ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "I", "G"].includes(c[1] ?? ""))
      .map((c) => ({ group: c[2]!, method: c[3]!, path: c[4]! }))
      // The SDK surface is its own issue.
      .filter((o) => !o.path.startsWith("/sdk/"));
    const bound = new Set(buildRoutes(apiServices).map((r) => `${r.verb} ${r.template.replace(/^\/api\/v0/, "").replace(/\{[a-z_]+\}/g, "{}")}`));
    const missing = rows.filter((o) => !bound.has(`${o.method} ${o.path.replace(/\{[A-Za-z]+\}/g, "{}")}`));
    expect(missing.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it("declares a permission from the catalogue (or is public)", () => {
    for (const r of routes) {
      const rules = methodRules(r.method);
      if (authModeOf(r.method) === AuthMode.NONE) continue;
      if (rules.permission === "") continue; // account-level operations: the account itself is the scope
      expect(MANAGEMENT_PERMISSIONS, `${r.method.parent.typeName}.${r.method.name}`).toContain(rules.permission);
    }
  });

  it("answers 401 without a token", async () => {
    const failures: string[] = [];
    for (const r of routes) {
      if (authModeOf(r.method) === AuthMode.NONE) continue;
      const { path: p, body } = requestFor(r);
      const res = await call(app.baseUrl, r.verb, p, { body });
      if (res.status !== 401 || res.body?.code !== "unauthorized") failures.push(`${r.verb} ${r.template} -> ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 404 to another tenant's tokens and changes nothing", async () => {
    const before = await fingerprint();
    const failures: string[] = [];
    for (const r of routes) {
      if (authModeOf(r.method) === AuthMode.NONE || isAccountLevel(r)) continue;
      for (const [who, token] of [
        ["environment token", b.token],
        ["member token", b.memberToken],
      ] as const) {
        const { path: p, body } = requestFor(r);
        const res = await call(app.baseUrl, r.verb, p, { token, body });
        if (res.status !== 404 || res.body?.code !== "not_found")
          failures.push(`${who}: ${r.verb} ${r.template} (${p}) -> ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await fingerprint()).toBe(before);
  }, 120_000);

  it("the first tenant's own token reaches the same operations (the seeded ids are real)", async () => {
    // Guards the test itself: if seeding failed, the 404s above would prove nothing.
    const notFoundForOwner: string[] = [];
    for (const r of routes) {
      if (authModeOf(r.method) === AuthMode.NONE || isAccountLevel(r) || r.verb !== "GET") continue;
      const { path: p } = requestFor(r);
      const res = await call(app.baseUrl, r.verb, p, { token: a.memberToken });
      if (res.status === 404 && res.body?.code === "not_found") notFoundForOwner.push(`${r.verb} ${r.template} (${p})`);
    }
    expect(notFoundForOwner).toEqual([]);
  }, 120_000);
});
