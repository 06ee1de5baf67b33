import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The generated document (src/gen/openapi.json) is a well-formed OpenAPI 3.1 document, and its schemas say
 * what the gateway writes. No OpenAPI validator is installed from npm, so the rules of the specification
 * that a generator can break are checked here one by one (schemathesis loads and validates it as well, in
 * test/e2e's fuzzing run).
 */
type Json = Record<string, any>;
const doc = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../src/gen/openapi.json"), "utf8")) as Json;
const VERBS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([verb]) => VERBS.includes(verb))
    .map(([verb, op]) => ({ path: p, verb, op: op as Json })),
);
const byId = new Map(operations.map((o) => [o.op.operationId as string, o]));
const schemas = doc.components.schemas as Record<string, Json>;

/** Every JSON value under `value`, with its location. */
function* walk(value: unknown, at: string): Generator<[string, Json]> {
  if (value === null || typeof value !== "object") return;
  yield [at, value as Json];
  for (const [k, v] of Object.entries(value)) yield* walk(v, `${at}/${k}`);
}

describe("the OpenAPI document's form", () => {
  it("is OpenAPI 3.1 with info, paths and components", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(typeof doc.info.title).toBe("string");
    expect(typeof doc.info.version).toBe("string");
    expect(Object.keys(doc.paths).length).toBeGreaterThan(100);
    for (const p of Object.keys(doc.paths)) expect(p).toMatch(/^\/api\/v0\//);
  });

  it("has unique operationIds, tags that are declared, and responses keyed by status", () => {
    expect(byId.size).toBe(operations.length);
    const tags = new Set((doc.tags as Json[]).map((t) => t.name));
    for (const { path: p, verb, op } of operations) {
      const where = `${verb} ${p}`;
      expect(op.operationId, where).toMatch(/^[A-Za-z0-9_]+$/);
      for (const t of op.tags) expect(tags.has(t), `${where} tag ${t}`).toBe(true);
      expect(Object.keys(op.responses).length, where).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        expect(status, where).toMatch(/^[1-5][0-9][0-9]$/);
        expect(typeof response.description, `${where} ${status}`).toBe("string");
      }
    }
  });

  it("declares each path template variable once as a path parameter, and parameters are unique by name and place", () => {
    for (const { path: p, verb, op } of operations) {
      const variables = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const params = (op.parameters ?? []) as Json[];
      const keys = params.map((x) => `${x.in}:${x.name}`);
      expect(new Set(keys).size, `${verb} ${p}`).toBe(keys.length);
      expect(params.filter((x) => x.in === "path").map((x) => x.name).sort(), `${verb} ${p}`).toEqual([...variables].sort());
      for (const x of params) {
        expect(["path", "query", "header", "cookie"], `${verb} ${p} ${x.name}`).toContain(x.in);
        expect(x.schema, `${verb} ${p} ${x.name}`).toBeDefined();
      }
    }
  });

  it("resolves every $ref, and uses only JSON Schema's types", () => {
    const types = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
    for (const [at, node] of walk(doc, "#")) {
      if (typeof node.$ref === "string") {
        expect(node.$ref, at).toMatch(/^#\/components\/schemas\/[A-Za-z0-9._-]+$/);
        expect(schemas[node.$ref.split("/").pop()!], `${at} -> ${node.$ref}`).toBeDefined();
      }
      if (at.includes("/schema") || at.startsWith("#/components/schemas")) {
        const t = node.type;
        if (typeof t === "string" && !at.endsWith("/properties")) expect(types.has(t), `${at}: ${t}`).toBe(true);
        if (Array.isArray(t)) for (const x of t) expect(types.has(x), `${at}: ${x}`).toBe(true);
        if (Array.isArray(node.required) && node.properties && !at.endsWith("/properties")) {
          for (const r of node.required) expect(Object.keys(node.properties), `${at} requires ${r}`).toContain(r);
        }
      }
    }
  });

  it("declares the two bearer schemes every operation's security names", () => {
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.endUserJwt).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    for (const { op } of operations) for (const s of op.security) for (const name of Object.keys(s)) expect(["apiToken", "endUserJwt"]).toContain(name);
  });
});

describe("the OpenAPI document's content", () => {
  it("names operations as the contract does (docs/spec/operations.md) where the method and path are the contract's", () => {
    expect(byId.get("postToken")).toMatchObject({ verb: "post", path: "/api/v0/environments/{environmentId}/tokens" });
    expect(byId.get("getUserLegacy")).toMatchObject({ verb: "get", path: "/api/v0/users/{userId}" });
    expect(byId.get("disableProvider")?.op.responses["200"]).toBeDefined();
  });

  it("answers 201 and 204 where the RPC declares them, 204 without a body", () => {
    const postToken = byId.get("postToken")!.op;
    expect(Object.keys(postToken.responses).filter((s) => s.startsWith("2"))).toEqual(["201"]);
    const deleted = byId.get("deleteWalletByIdLegacy")!.op;
    expect(Object.keys(deleted.responses).filter((s) => s.startsWith("2"))).toEqual(["204"]);
    expect(deleted.responses["204"].content).toBeUndefined();
  });

  it("gives every error answer the spec's body, its code an enum of the declared codes", () => {
    expect(schemas.Error).toMatchObject({ type: "object", required: ["error", "code"] });
    for (const { path: p, verb, op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const schema = response.content["application/json"].schema;
        expect(schema.allOf[0], `${verb} ${p} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
        expect(schema.allOf[1].properties.code.enum.length, `${verb} ${p} ${status}`).toBeGreaterThan(0);
      }
      // Whatever the route, the gateway may answer an opaque 500.
      expect(op.responses["500"].content["application/json"].schema.allOf[1].properties.code.enum, `${verb} ${p}`).toContain("internal");
    }
    // A JSON body can be malformed or too large.
    const body = byId.get("postToken")!.op.responses;
    expect(body["400"].content["application/json"].schema.allOf[1].properties.code.enum).toEqual(expect.arrayContaining(["malformed_json", "validation_error"]));
    expect(body["413"].content["application/json"].schema.allOf[1].properties.code.enum).toEqual(["payload_too_large"]);
    expect(body["401"]).toBeDefined();
  });

  it("writes answers as the gateway presents them: 64-bit integers as strings, timestamps as date-time", () => {
    const found = { int64: false, dateTime: false };
    for (const [at, node] of walk(schemas, "#")) {
      if (/^#\/[^/]+Input\//.test(at)) continue;
      if (node.format === "int64") {
        expect(node.type, at).toBe("string");
        found.int64 = true;
      }
      if (node.format === "date-time") found.dateTime = node.type === "string";
    }
    expect(found).toEqual({ int64: true, dateTime: true });
  });

  it("lists a string field's allowed values (the spec's spellings) as its enum in requests", () => {
    // Optional: the empty string passes the rules too (src/rpc/validation.ts checks a non-empty value only).
    expect(schemas.JwtDurationInput.properties.unit).toEqual({ anyOf: [{ type: "string", enum: ["minutes", "hours", "days"] }, { type: "string", const: "" }] });
  });

  it("marks what an answer always has as required and `nullable` fields as null-able", () => {
    const provider = schemas.Provider;
    expect(provider).toBeDefined();
    // enabledAt is a nullable Timestamp (null on a disabled provider, src/gateway/present.ts).
    expect(provider.properties.enabledAt.anyOf).toEqual([{ type: "string", format: "date-time" }, { type: "null" }]);
    expect(provider.required).toContain("enabledAt");
  });

  it("carries the field rules as constraints: uuid path parameters, required body fields, lengths and allowed values", () => {
    const postToken = byId.get("postToken")!.op;
    const env = postToken.parameters.find((x: Json) => x.name === "environmentId");
    expect(env).toMatchObject({ in: "path", required: true, schema: { type: "string", format: "uuid" } });
    const create = byId.get("createEmailVerification")!.op;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toContain("email");
    expect(body.properties.email).toMatchObject({ type: "string", format: "email", minLength: 1 });
    // The path binds environmentId: the body does not carry it.
    expect(body.properties.environmentId).toBeUndefined();
  });

  it("marks a query parameter the RPC requires as required", () => {
    const balances = byId.get("getAccountBalances")!.op;
    expect(balances.parameters.find((x: Json) => x.name === "accountAddress")).toMatchObject({ in: "query", required: true });
  });

  it("lets a browser step answer 303 to its next page, and says a page's content type is its handler's", () => {
    const login = doc.paths["/api/v0/sdk/{environmentId}/providers/{providerType}/login"].get;
    expect(login.responses["303"].headers.Location).toBeDefined();
    expect(Object.keys(login.responses["200"].content)).toEqual(["*/*"]);
  });

  it("says who may call: management operations their permission, SDK sign-ins nothing, end-user operations the JWT", () => {
    const postToken = byId.get("postToken")!.op;
    expect(postToken.security).toEqual([{ apiToken: [] }]);
    expect(postToken["x-permission"]).toMatch(/^tokens\./);
    expect(byId.get("createEmailVerification")!.op.security).toEqual([]);
    expect(byId.get("getAuthenticatedUser")!.op.security).toEqual([{ endUserJwt: [] }]);
  });
});
