/**
 * The schemathesis.toml that test/contract/schemathesis.test.ts runs Schemathesis with: both auth schemes of
 * the document filled with a live tenant's credentials, and the path parameters that name a tenant's
 * resources bound to that tenant's real ids. Without the bindings nearly every generated
 * request names a random UUID, is a 404 from the tenancy check, and the fuzzing never reaches a handler.
 */

/** What the fuzzed server holds for the run: one tenant, its credentials and a signed-in end user. */
export interface FuzzTenant {
  organizationId: string;
  projectId: string;
  environmentId: string;
  /** A management token that acts in the tenant's organization, project and environments. */
  managementToken: string;
  /** The end user's session JWT. */
  jwt: string;
  userId: string;
  sessionId: string;
  /**
   * Operations that would delete or end what the rest of the run stands on (the organization, the user, the
   * session): they act on other, expendable resources instead, named by parameter (any spelling) or by JWT.
   */
  overrides: OperationOverride[];
}

interface OperationOverride {
  method: "get" | "put" | "post" | "delete" | "patch";
  /** Matched against the document's path (its own spelling of the parameters). */
  path: RegExp;
  /** Path parameter values by folded name (environmentid, userid...). */
  parameters?: Record<string, string>;
  /** The end user's JWT for this operation. */
  jwt?: string;
}

interface FuzzLimits {
  /** Test cases per operation and phase. */
  maxExamples: number;
  /** Requests in flight at once. */
  workers: number;
  seed: number;
}

/** The document's parts read here (OpenAPI 3.1). */
interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId?: string; security?: Record<string, string[]>[]; parameters?: { name: string; in: string }[] }>>;
  security?: Record<string, string[]>[];
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string; bearerFormat?: string }> };
}

const methods = ["get", "put", "post", "delete", "patch"] as const;

/** A parameter name with its case and underscores folded: environment_id and environmentId are one name. */
const fold = (name: string) => name.replace(/[_-]/g, "").toLowerCase();

/**
 * The document's two bearer schemes: the one the SDK operations (under /sdk/) require is the end user's JWT,
 * the other the management token. Read from the document so that renaming a scheme breaks nothing here.
 */
function authSchemes(doc: OpenApiDoc): { management: string; endUser: string } {
  const schemes = Object.keys(doc.components?.securitySchemes ?? {});
  const used = (predicate: (path: string) => boolean) => {
    const names = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths))
      if (predicate(path))
        for (const m of methods) for (const req of item[m]?.security ?? (item[m] ? doc.security : undefined) ?? []) for (const n of Object.keys(req)) names.add(n);
    return names;
  };
  const sdk = used((p) => /\/sdk\//.test(p));
  const other = used((p) => !/\/sdk\//.test(p));
  const endUser = [...sdk].find((n) => !other.has(n));
  const management = [...other].find((n) => !sdk.has(n));
  if (!endUser || !management || schemes.length < 2)
    throw new Error(`cannot tell the document's two auth schemes apart (schemes: ${schemes.join(", ") || "none"}; used under /sdk/: ${[...sdk].join(", ")}; elsewhere: ${[...other].join(", ")})`);
  return { management, endUser };
}

/** Every parameter name the document uses in paths, as spelt there. */
function pathParameterNames(doc: OpenApiDoc): string[] {
  const names = new Set<string>();
  for (const path of Object.keys(doc.paths)) for (const m of path.matchAll(/\{([^}]+)\}/g)) names.add(m[1]!);
  return [...names];
}

const toml = (value: string | number | boolean) => (typeof value === "string" ? JSON.stringify(value) : String(value));

/** The TOML text. */
export function schemathesisConfig(doc: OpenApiDoc, tenant: FuzzTenant, limits: FuzzLimits, reportDir: string): string {
  const { management, endUser } = authSchemes(doc);
  // Real ids by folded parameter name. Not the management token's own id (a fuzzed DELETE would revoke the
  // run's credentials), nor the member's (the owner), which stay random.
  const real: Record<string, string> = {
    environmentid: tenant.environmentId,
    organizationid: tenant.organizationId,
    projectid: tenant.projectId,
    userid: tenant.userId,
    sessionid: tenant.sessionId,
  };
  const bound = pathParameterNames(doc).filter((n) => real[fold(n)]);
  const lines: string[] = [
    "# Written by test/contract/schemathesis.test.ts for one run against a throwaway server.",
    `workers = ${limits.workers}`,
    `seed = ${limits.seed}`,
    // A request that hangs is a finding too, but not a reason to spend the whole budget on it.
    "request-timeout = 30",
    "",
    "[generation]",
    `max-examples = ${limits.maxExamples}`,
    // Both valid and invalid input: the server must answer bad input with a declared 4xx, never a 5xx.
    'mode = "all"',
    "",
    // Ids the server answered with (a created webhook, wallet...) are reused as inputs of later operations.
    "[phases.fuzzing.extra-data-sources]",
    "responses = true",
    "",
    "[checks]",
    "enabled = false",
    "not_a_server_error.enabled = true",
    "status_code_conformance.enabled = true",
    "content_type_conformance.enabled = true",
    "response_schema_conformance.enabled = true",
    "response_headers_conformance.enabled = true",
    "",
    // Schemathesis would otherwise sign up through a sign-in operation it recognises and put that token
    // in place of the ones given here, for every scheme.
    "[auth]",
    "auto-signup = false",
    "",
    `[auth.openapi.${management}]`,
    `bearer = ${toml(tenant.managementToken)}`,
    "",
    `[auth.openapi.${endUser}]`,
    `bearer = ${toml(tenant.jwt)}`,
    "",
    "[reports]",
    `directory = ${toml(reportDir)}`,
    "junit.enabled = true",
    "ndjson.enabled = true",
    "",
  ];
  // Always the tenant's id (a dictionary binding, which could mix in generated ids, is ignored by the coverage
  // phase): malformed and unknown ids are still generated for every other path parameter.
  lines.push("[parameters]");
  for (const name of bound) lines.push(`${toml(name)} = ${toml(real[fold(name)]!)}`);
  lines.push("");

  for (const o of tenant.overrides) {
    const paths = Object.keys(doc.paths).filter((p) => o.path.test(p) && doc.paths[p]![o.method]);
    if (!paths.length) throw new Error(`no ${o.method.toUpperCase()} operation in the document matches ${o.path}: update the overrides`);
    for (const path of paths) {
      // By operationId: an entry's include-path and include-method select either, not both.
      const operationId = doc.paths[path]![o.method]!.operationId;
      if (!operationId) throw new Error(`${o.method.toUpperCase()} ${path} has no operationId`);
      lines.push("[[operations]]", `include-operation-id = ${toml(operationId)}`);
      if (o.jwt) lines.push(`headers = { Authorization = ${toml(`Bearer ${o.jwt}`)} }`);
      const params = Object.entries(o.parameters ?? {}).flatMap(([folded, value]) =>
        [...path.matchAll(/\{([^}]+)\}/g)].filter((m) => fold(m[1]!) === folded).map((m) => `${toml(m[1]!)} = ${toml(value)}`),
      );
      if (params.length) lines.push(`parameters = { ${params.join(", ")} }`);
      lines.push("");
    }
  }
  return lines.join("\n");
}
