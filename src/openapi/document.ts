import type { DescService } from "@bufbuild/protobuf";
import { buildRoutes, type Route } from "../gateway/rules.js";
import { ERROR_BODY_NAME, ERROR_BODY_SCHEMA } from "./errors.js";
import { API_TOKEN_SCHEME, buildOperation, END_USER_SCHEME, openApiPath, tagOf } from "./operations.js";
import type { DeclaredError } from "../rpc/declared-errors.js";
import { SchemaRegistry } from "./schemas.js";
import { operationKey } from "./spec-names.js";
import type { Describe, OpenApiDocument } from "./types.js";

export interface DocumentOptions {
  /** The services whose google.api.http bindings the gateway serves. */
  services: readonly DescService[];
  version: string;
  /** Doc comments of the protos (services, methods, messages, fields). */
  describe?: Describe;
  /** Operation names of the contract by operationKey (spec-names.ts). */
  specNames?: ReadonlyMap<string, string>;
  /** The errors each RPC declares (src/rpc/declared-errors.ts). */
  declaredErrors: (route: Route) => readonly DeclaredError[];
}

/**
 * The OpenAPI 3.1 document of the REST API: one operation per route of the gateway's own rule table
 * (src/gateway/rules.ts, buildRoutes), so the document cannot list a path the gateway does not serve.
 */
export function buildOpenApiDocument(opts: DocumentOptions): OpenApiDocument {
  const describe = opts.describe ?? (() => undefined);
  const schemas = new SchemaRegistry(describe);
  const routes = buildRoutes(opts.services);
  // Declaration order (buildRoutes sorts by specificity for matching) keeps the reference in the protos' order.
  const order = new Map(opts.services.flatMap((s) => s.methods).map((m, i) => [m, i]));
  routes.sort((a, b) => order.get(a.method)! - order.get(b.method)!);

  const paths: OpenApiDocument["paths"] = {};
  const usedIds = new Set<string>();
  const tags = new Map<string, string | undefined>();
  for (const route of routes) {
    const path = openApiPath(route);
    const verb = route.verb.toLowerCase();
    const id = uniqueId(opts.specNames?.get(operationKey(route.verb, path)) ?? `${route.service.name}_${route.method.name}`, usedIds);
    const item = (paths[path] ??= {});
    if (item[verb]) throw new Error(`two RPCs are bound to ${route.verb} ${path}`);
    item[verb] = buildOperation(route, id, { schemas, describe, declaredErrors: opts.declaredErrors });
    if (!tags.has(tagOf(route))) tags.set(tagOf(route), describe(route.service));
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Sigil API",
      version: opts.version,
      description:
        "The REST API of Sigil, a self-hosted multi-tenant identity and wallet service, generated from its protos " +
        "(the `google.api.http` bindings). Errors answer `{error, code, payload?}`; each operation lists the codes it can answer. " +
        "Every path also answers OPTIONS (its methods in `Allow`) and browsers' CORS preflights. The same operations are served " +
        "over gRPC and Connect under the RPC name each operation gives as `x-rpc`.",
    },
    tags: [...tags].map(([name, description]) => (description ? { name, description } : { name })),
    paths,
    components: {
      schemas: { [ERROR_BODY_NAME]: ERROR_BODY_SCHEMA, ...sortKeys(schemas.components) },
      securitySchemes: {
        [API_TOKEN_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "A management API token of an environment or of an account (`Authorization: Bearer <token>`). An operation's " +
            "`x-permission` names the permission the token needs.",
        },
        [END_USER_SCHEME]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The session JWT of an end user of the environment the path names, as the SDK's sign-in operations answer it.",
        },
      },
    },
  };
}

function uniqueId(id: string, used: Set<string>): string {
  let candidate = id;
  for (let i = 2; used.has(candidate); i++) candidate = `${id}_${i}`;
  used.add(candidate);
  return candidate;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
