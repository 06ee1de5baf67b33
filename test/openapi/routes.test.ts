import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildRoutes, resolveFieldPath, type Route } from "../../src/gateway/rules.js";
import { AuthMode } from "../../src/gen/sigil/options/v0/options_pb.js";
import { declaredErrors } from "../../src/rpc/declared-errors.js";
import { authModeOf, methodRules } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";

/**
 * The published document (src/gen/openapi.json, `npm run gen`) against the gateway's own route table of the
 * services the server mounts: every route is there with its method, path, parameters, success status and
 * authentication, and the document has nothing more.
 */
interface Op {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: { code?: { enum?: string[] } } }[] } }> }>;
  "x-rpc": string;
  "x-permission"?: string;
}
const document = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../src/gen/openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, Op>>;
};
const routes = buildRoutes(apiServices);

/** The route's path as the document must write it: each variable named by its field's JSON name. */
function documentPath(route: Route): string {
  return route.template.replace(/\{([^}=]+)(=\*)?\}/g, (_, fieldPath: string) =>
    `{${resolveFieldPath(route.method.input, fieldPath, route.template)
      .map((f) => f.jsonName)
      .join(".")}}`,
  );
}

const VERBS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

describe("the OpenAPI document and the gateway's routes", () => {
  it("has every route of the mounted services, with its method, path, RPC and success status", () => {
    expect(routes.length).toBeGreaterThan(100);
    for (const route of routes) {
      const where = `${route.verb} ${route.template}`;
      const op = document.paths[documentPath(route)]?.[route.verb.toLowerCase()];
      expect(op, where).toBeDefined();
      expect(op!["x-rpc"], where).toBe(`${route.method.parent.typeName}/${route.method.name}`);
      const status = String(methodRules(route.method).successStatus || 200);
      const success = Object.keys(op!.responses).filter((s) => s.startsWith("2"));
      expect(success, where).toEqual([status]);
      if (status === "204") expect(op!.responses["204"].content, where).toBeUndefined();
    }
  });

  it("has nothing but those routes", () => {
    const expected = new Set(routes.map((r) => `${r.verb} ${documentPath(r)}`));
    const listed: string[] = [];
    for (const [p, item] of Object.entries(document.paths)) {
      for (const verb of Object.keys(item)) if (VERBS.includes(verb)) listed.push(`${verb.toUpperCase()} ${p}`);
    }
    expect(listed.filter((k) => !expected.has(k))).toEqual([]);
    expect(listed.length).toBe(expected.size);
  });

  it("names each path variable as a required path parameter, and no other", () => {
    for (const route of routes) {
      const p = documentPath(route);
      const op = document.paths[p][route.verb.toLowerCase()];
      const inPath = (op.parameters ?? []).filter((x) => x.in === "path");
      const variables = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(inPath.map((x) => x.name).sort(), p).toEqual([...variables].sort());
      expect(inPath.every((x) => x.required === true), p).toBe(true);
      // A rule without a body takes no request body (the gateway never reads one).
      if (route.body === "") expect(op.requestBody, p).toBeUndefined();
      else expect(op.requestBody, p).toBeDefined();
    }
  });

  it("says how each operation authenticates: the management token with its permission, the end user's JWT, or nothing", () => {
    for (const route of routes) {
      const op = document.paths[documentPath(route)][route.verb.toLowerCase()];
      const where = `${route.verb} ${route.template}`;
      switch (authModeOf(route.method)) {
        case AuthMode.NONE:
          expect(op.security, where).toEqual([]);
          break;
        case AuthMode.END_USER:
          expect(op.security, where).toEqual([{ endUserJwt: [] }]);
          break;
        default:
          expect(op.security, where).toEqual([{ apiToken: [] }]);
          expect(op["x-permission"], where).toBe(methodRules(route.method).permission || undefined);
      }
    }
  });

  it("lists every error code the RPC declares under its status, as the only codes of that status", () => {
    for (const route of routes) {
      const op = document.paths[documentPath(route)][route.verb.toLowerCase()];
      for (const { code, status } of declaredErrors(route.method)) {
        const codes = op.responses[String(status)]?.content?.["application/json"].schema.allOf?.[1].properties?.code?.enum;
        expect(codes, `${route.verb} ${route.template} ${status}`).toContain(code);
      }
    }
  });
});
