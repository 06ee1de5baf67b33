import { describe, expect, it } from "vitest";
import { GatewayError } from "../../src/gateway/errors.js";
import { buildRequestMessage } from "../../src/gateway/request.js";
import { buildRoutes, matchRoute, parseTemplate } from "../../src/gateway/rules.js";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { WalletsService } from "../../src/gen/sigil/wallets/v0/wallets_service_pb.js";
import { dynamicService } from "./dynamic-service.js";

const svc = dynamicService();
const routes = buildRoutes([svc]);

function build(verb: string, url: string, body?: unknown) {
  const [path, qs = ""] = url.split("?");
  const m = matchRoute(routes, verb, path);
  if (m.kind !== "found") throw new Error(`no route: ${m.kind}`);
  const msg = buildRequestMessage(m.route, { pathParams: m.pathParams, query: new URLSearchParams(qs), body: body as never });
  return { route: m.route, msg: msg as unknown as Record<string, unknown> };
}

function gatewayError(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error("expected a GatewayError");
}

describe("rule table", () => {
  it("reads every binding, additional_bindings included", () => {
    const templates = buildRoutes([WalletsService])
      .filter((r) => r.method.name === "GetWallet")
      .map((r) => `${r.verb} ${r.template}`);
    expect(templates.sort()).toEqual([
      "GET /api/v0/environments/{environment_id}/wallets/{wallet_id}",
      "GET /api/v0/wallets/{wallet_id}",
    ]);
  });

  it("prefers the template with more literal segments whatever the declaration order", () => {
    const m = matchRoute(routes, "GET", "/v/me");
    expect(m.kind === "found" && m.route.method.name).toBe("Me");
    const other = matchRoute(routes, "GET", "/v/abc");
    expect(other.kind === "found" && other.route.method.name).toBe("Get");
  });

  it("supports custom verbs, {field=*} and reports allowed methods", () => {
    expect(matchRoute(routes, "PURGE", "/v/x/cache").kind).toBe("found");
    expect(matchRoute(routes, "POST", "/v/x/inner").kind).toBe("found");
    expect(matchRoute(routes, "GET", "/v/x/inner")).toEqual({ kind: "method_not_allowed", allow: ["POST"] });
    expect(matchRoute(routes, "GET", "/v/x/y/z")).toEqual({ kind: "not_found" });
    // A variable never matches an empty segment.
    expect(matchRoute(routes, "POST", "/v//inner").kind).toBe("not_found");
  });

  it("rejects templates it cannot serve at startup", () => {
    expect(() => parseTemplate("/v/{name=**}")).toThrow(/unsupported/);
    expect(() => parseTemplate("v/{id}")).toThrow(/must start with/);
    expect(parseTemplate("/a/{b}/c")).toEqual([
      { kind: "literal", value: "a" },
      { kind: "variable", fieldPath: "b" },
      { kind: "literal", value: "c" },
    ]);
  });

  it("keeps declaration order among equally specific templates", () => {
    expect(buildRoutes([TokensService]).map((r) => `${r.verb} ${r.template}`)).toEqual([
      "POST /api/v0/environments/{environment_id}/tokens",
      "GET /api/v0/environments/{environment_id}/tokens",
      "DELETE /api/v0/environments/{environment_id}/tokens/{token_id}",
    ]);
  });
});

describe("query parameters", () => {
  it("converts scalars, repeated keys, enums, 64-bit ints, nested and WKT fields", () => {
    const { msg } = build(
      "GET",
      "/v/abc?tags=a&tags=b&flag=true&color=COLOR_RED&limit=5&big=9007199254740993&inner.name=x&nums=1&nums=2&since=2024-01-02T03:04:05Z&unknown=1",
    );
    expect(msg).toMatchObject({
      id: "abc",
      tags: ["a", "b"],
      flag: true,
      color: 1,
      limit: 5,
      big: 9007199254740993n,
      inner: { name: "x" },
      nums: [1, 2],
      since: { seconds: 1704164645n },
    });
  });

  it("accepts proto names, numeric enum values and never overrides a path variable", () => {
    const { msg } = build("GET", "/v/abc?id=evil&color=1&flag=false");
    expect(msg).toMatchObject({ id: "abc", color: 1, flag: false });
  });

  it("answers 400 naming the field for a value of the wrong type", () => {
    const bad = gatewayError(() => build("GET", "/v/abc?flag=yes"));
    expect(bad.status).toBe(400);
    expect(bad.code).toBe("invalid_query_parameter");
    expect(bad.payload).toEqual({ field: "flag" });
    const nan = gatewayError(() => build("GET", "/v/abc?limit=lots"));
    expect(nan.payload).toEqual({ field: "limit" });
  });
});

describe("body binding", () => {
  it("fills only the named field from the body and still reads the query for others", () => {
    const { msg } = build("POST", "/v/abc/inner?tags=t", { name: "from-body", ignored: true });
    expect(msg).toMatchObject({ id: "abc", inner: { name: "from-body" }, tags: ["t"] });
  });

  it("requires an object body for a message field", () => {
    const err = gatewayError(() => build("POST", "/v/abc/inner", "just a string"));
    expect(err.code).toBe("invalid_request_body");
  });

  it("reports nested wrong types by the nested field", () => {
    const err = gatewayError(() => build("POST", "/v/abc/inner", { name: 5 }));
    expect(err.code).toBe("invalid_request_body");
    expect(err.payload).toEqual({ field: "name" });
  });
});
