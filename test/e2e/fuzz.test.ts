import { randomUUID } from "node:crypto";
import { ScalarType, type DescField, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { buildRoutes, type Route } from "../../src/gateway/rules.js";
import { fieldRules } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { signInAs } from "../support/sessions.js";
import { seedTenant, type SeededIds } from "./support/seed-tenant.js";

/**
 * Property-based fuzzing of every write operation (every POST / PUT / PATCH / DELETE binding read from the
 * protos' google.api.http options) over REST, and of a sample of RPCs over Connect JSON: arbitrary JSON of
 * every type and depth, text with NUL, unpaired surrogates and right-to-left marks, huge and non-finite
 * numbers, very long strings, aimed at a seeded tenant's real ids so that requests reach the handlers.
 * Besides, every SDK route (all verbs) with a live end-user session, over REST and Connect, and every
 * management read with the API token: an id that is not one is a 400 before any lookup, signed in or not.
 * Properties: never a 5xx, every 4xx carries the error body, and the server is healthy afterwards.
 * Reproduce a failure with FUZZ_SEED=<seed> (printed in the failure message).
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
// Sized for a 2-core machine shared with other test files: the whole file stays well under a minute.
const REST_RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const DELETE_RUNS = Math.ceil(REST_RUNS / 10);
const CONNECT_RUNS = Math.ceil(REST_RUNS / 4);

const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const routes = buildRoutes(apiServices).filter((r) => WRITE_VERBS.has(r.verb));
// Deleting runs last: it may remove the very tenant the other requests aim at.
const writeRoutes = routes.filter((r) => r.verb !== "DELETE");
const deleteRoutes = routes.filter((r) => r.verb === "DELETE");
const unaryMethods: { service: DescService; method: DescMethod }[] = apiServices.flatMap((service) =>
  service.methods.filter((m) => m.methodKind === "unary").map((method) => ({ service, method })),
);
const allRoutes = buildRoutes(apiServices);
// The SDK surface, every verb, called with a live session: an id is checked before the session is.
const sdkRoutes = allRoutes.filter((r) => r.template.startsWith("/api/v0/sdk/"));
const sdkUnaryMethods = unaryMethods.filter(({ method }) => sdkRoutes.some((r) => r.method === method));
// The management reads, called with a valid API token (the writes are fuzzed above them).
const managementReads = allRoutes.filter((r) => r.verb === "GET" && !r.template.startsWith("/api/v0/sdk/"));
const SDK_RUNS = Math.ceil(REST_RUNS / 4);
const READ_RUNS = Math.ceil(REST_RUNS / 4);

let app: TestApp;
let t: BootstrapResult;
let ids: SeededIds;
/** A token of the tenant that requests may delete, so the caller's own token survives the write runs. */
let spareTokenId: string;
/** A signed-in end user of the tenant, renewed every few requests (a fuzzed sign-out or delete may end it). */
let session: { jwt: string; uses: number } | undefined;
async function sessionJwt(): Promise<string> {
  if (!session || session.uses++ >= 25) session = { jwt: (await signInAs(app, t.environmentId)).jwt, uses: 0 };
  return session.jwt;
}

beforeAll(async () => {
  // Limits off: the point is to reach the handlers, not the rate limiter.
  app = await startTestApp({ rateLimitPerMinute: 0, sdkEvents: { perAddressPerMinute: 0, perEnvironmentPerMinute: 0 } });
  t = await app.bootstrap({ ownerEmail: `fuzz-${randomUUID()}@example.com` });
  ids = await seedTenant(app, t);
  const spare = await fetch(`${app.baseUrl}/api/v0/environments/${t.environmentId}/tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    body: JSON.stringify({ note: "spare" }),
  });
  spareTokenId = ((await spare.json()) as { token: { id: string } }).token.id;
}, 120_000);
afterAll(() => app?.stop());

// ---------------------------------------------------------------------------------------------------------
// Values

/** One UTF-16 unit or code point of hostile text: NUL, lone surrogates, controls, RTL override, emoji. */
const textUnit = fc.oneof(
  fc.constantFrom("\u0000", "\uD800", "\uDFFF", "\u202E", "\uFEFF", "\n", "'", '"', "\\", "%", "/", "😀", "é", "a", "."),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);
const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: textUnit, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "null", "undefined", "0", "-1", "true", "' OR 1=1 --", "<script>alert(1)</script>", "../../etc/passwd", "%00", "${x}") },
  // Very long strings (past every max_len and most column widths).
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: textUnit, minLength: 1, maxLength: 3 }), fc.integer({ min: 300, max: 20_000 })).map(([s, n]) => s.repeat(n)) },
);

/** JSON can carry numbers JavaScript cannot: they are sent as raw text through this marker. */
const RAW = "\u0001raw:";
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 2 ** 64, 1e21, 1.5, 9.99e307),
  fc.constantFrom("1e400", "-1e400", "123456789012345678901234567890", "0.0000000000000000000000001e-400").map((n) => RAW + n),
);

const scalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** Any JSON value, nested. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: "small", maxDepth: 4 }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(hostileString, fc.constantFrom("id", "name", "type", "__proto__", "constructor")), tie("value"), { maxKeys: 4 }),
})).value;

/** Real ids of the seeded tenant, by the proto name of the field that carries them. */
function realIds(): Record<string, string> {
  return {
    ...ids,
    environment_id: t.environmentId,
    organization_id: t.organizationId,
    project_id: t.projectId,
    member_id: t.memberId,
    token_id: spareTokenId,
  };
}

/** Plausible values for a field (so a request gets past the rules), mixed with hostile ones. */
function fieldValue(f: DescField, depth: number): fc.Arbitrary<unknown> {
  const rules = fieldRules(f);
  const plausible: fc.Arbitrary<unknown>[] = [];
  const single = (): fc.Arbitrary<unknown> => {
    if (f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message") || (f.fieldKind === "map" && f.mapKind === "message"))
      return depth < 3 ? messageBody(f.message!, depth + 1) : anyJson;
    if (rules?.allowed.length) return fc.constantFrom(...rules.allowed);
    if (rules?.uuid) return fc.oneof(fc.constantFrom(...Object.values(realIds())), fc.uuid());
    if (rules?.email) return fc.uuid().map((u) => `fuzz-${u}@example.com`);
    if (rules?.url) return fc.constantFrom("https://example.com/x", "http://127.0.0.1:1/", "javascript:alert(1)");
    const kind = f.fieldKind === "scalar" || (f.fieldKind === "list" && f.listKind === "scalar") ? f.scalar : undefined;
    if (kind === ScalarType.BOOL) return fc.boolean();
    if (kind !== undefined && kind !== ScalarType.STRING && kind !== ScalarType.BYTES) return hostileNumber;
    if (f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum"))
      return fc.constantFrom(...f.enum!.values.map((v) => v.name));
    return hostileString;
  };
  plausible.push(single());
  if (f.fieldKind === "list") plausible.push(fc.array(single(), { maxLength: 3 }));
  if (f.fieldKind === "map") plausible.push(fc.dictionary(hostileString, single(), { maxKeys: 3 }));
  return fc.oneof(...plausible, anyJson);
}

/** A value that passes a field's declared rules (required fields of a base body). */
function validValue(f: DescField, depth: number): unknown {
  const rules = fieldRules(f);
  const one = (): unknown => {
    if (f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message")) return depth < 3 ? baseBody(f.message!, depth + 1) : {};
    if (f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum")) return f.enum!.values[1]?.name ?? f.enum!.values[0]!.name;
    const kind = f.fieldKind === "scalar" || (f.fieldKind === "list" && f.listKind === "scalar") ? f.scalar : ScalarType.STRING;
    if (kind === ScalarType.BOOL) return true;
    if (kind !== ScalarType.STRING && kind !== ScalarType.BYTES) return 1;
    if (rules?.allowed.length) return rules.allowed[0];
    if (rules?.uuid) return realIds()[f.name] ?? randomUUID();
    if (rules?.email) return `fuzz-${randomUUID()}@example.com`;
    if (rules?.url) return "https://example.com/x";
    return "x".repeat(Math.max(rules?.minLen ?? 0, 1));
  };
  return f.fieldKind === "list" ? [one()] : one();
}

/** The message's required fields with valid values: the start that one hostile field is put into. */
function baseBody(m: DescMessage, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of m.fields) if (fieldRules(f)?.required) out[f.jsonName] = validValue(f, depth);
  return out;
}

const messageCache = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/**
 * An object for a message: mostly a valid base with one or two fields replaced by plausible or hostile
 * values (so the hostile value is the only thing wrong and reaches as deep as it can), sometimes any subset
 * of its fields, with stray keys.
 */
function messageBody(m: DescMessage, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  if (m.typeName.startsWith("google.protobuf.")) return fc.dictionary(hostileString, anyJson, { maxKeys: 3 });
  const key = `${m.typeName}:${depth}`;
  let arb = messageCache.get(key);
  if (!arb) {
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of m.fields) shape[f.jsonName] = fieldValue(f, depth);
    const oneField =
      m.fields.length === 0
        ? fc.constant({})
        : fc.constantFrom(...m.fields).chain((f) => shape[f.jsonName]!.map((v) => ({ [f.jsonName]: v })));
    arb = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(oneField, oneField).map(([a, b]) => ({ ...baseBody(m, depth), ...a, ...b })) },
      { weight: 1, arbitrary: fc.record(shape, { requiredKeys: [] }) },
      { weight: 1, arbitrary: fc.tuple(oneField, fc.dictionary(hostileString, anyJson, { maxKeys: 2 })).map(([a, stray]) => ({ ...stray, ...baseBody(m, depth), ...a })) },
    );
    messageCache.set(key, arb);
  }
  return arb;
}

/** A request body for a route: a shaped one most of the time, any JSON at all sometimes. */
function bodyArb(r: Route): fc.Arbitrary<unknown> {
  if (r.body === "") return fc.constant(undefined);
  if (r.body === "*") return fc.oneof({ weight: 4, arbitrary: messageBody(r.method.input) }, { weight: 1, arbitrary: anyJson });
  const f = r.method.input.fields.find((x) => x.name === r.body)!;
  return fc.oneof({ weight: 4, arbitrary: fieldValue(f, 0) }, { weight: 1, arbitrary: anyJson });
}

/** A path variable: the tenant's real id most of the time, sometimes hostile text. */
function pathValue(r: Route, fieldPath: string): fc.Arbitrary<string> {
  const field = r.method.input.fields.find((f) => f.name === fieldPath);
  const rules = field && fieldRules(field);
  const real = realIds()[fieldPath] ?? rules?.allowed[0] ?? "EVM";
  return fc.oneof({ weight: 9, arbitrary: fc.constant(real) }, { weight: 1, arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 2000) });
}

/** A URL carries bytes: an unpaired surrogate cannot be sent there, so it goes as U+FFFD (what UTF-8 makes of it). */
const enc = (s: string) => encodeURIComponent((s as string & { toWellFormed(): string }).toWellFormed());

/** JSON text of a generated value, with the raw-number markers turned into the numbers they stand for. */
function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw:([^"]*)"/g, "$1");
}

const queryArb = fc.array(fc.tuple(fc.constantFrom("limit", "offset", "filter[filterValue]", "x"), hostileString), { maxLength: 2 });

const requestArb = (pool: readonly Route[]) =>
  fc.constantFrom(...pool).chain((route) =>
    fc
      .record({
        segments: fc.tuple(...route.segments.map((s) => (s.kind === "literal" ? fc.constant(s.value) : pathValue(route, s.fieldPath)))),
        body: bodyArb(route),
        query: queryArb,
      })
      .map(({ segments, body, query }) => ({
        route: `${route.verb} ${route.template}`,
        verb: route.verb,
        path: "/" + segments.map(enc).join("/"),
        query: query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&"),
        body: body === undefined ? undefined : toJsonText(body),
      })),
  );

// ---------------------------------------------------------------------------------------------------------
// Properties

interface Answer {
  status: number;
  text: string;
  contentType: string | null;
}

/** Statuses seen, by class: the fuzzing is only worth something if requests get past validation too. */
const seen = new Map<string, number>();

async function send(method: string, url: string, body: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body,
  });
  const cls = `${String(res.status)[0]}xx`;
  seen.set(cls, (seen.get(cls) ?? 0) + 1);
  if (process.env.FUZZ_VERBOSE) seen.set(String(res.status), (seen.get(String(res.status)) ?? 0) + 1);
  return { status: res.status, text: await res.text(), contentType: res.headers.get("content-type") };
}

/** The REST property: no 5xx; every error is the spec's body `{error, code, payload?}`. */
function checkRest(what: string, a: Answer): void {
  if (a.status >= 500) throw new Error(`${what} answered ${a.status}: ${a.text.slice(0, 500)}`);
  if (a.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    throw new Error(`${what} answered ${a.status} without a JSON body: ${a.text.slice(0, 200)}`);
  }
  const b = body as Record<string, unknown>;
  if (typeof b?.error !== "string" || typeof b.code !== "string" || !/^[a-z][a-z0-9_]*$/.test(b.code))
    throw new Error(`${what} answered ${a.status} without {error, code}: ${a.text.slice(0, 200)}`);
  if (!a.contentType?.startsWith("application/json")) throw new Error(`${what} answered ${a.status} as ${a.contentType}`);
}

/** Runs a property with the file's seed; a failure names the seed, the path and the counterexample. */
async function assertProperty(name: string, prop: fc.IAsyncProperty<[any]>, numRuns: number): Promise<void> {
  const details = await fc.check(prop, { seed: SEED, numRuns, endOnFailure: false, verbose: 0 });
  if (details.failed) {
    const example = JSON.stringify(details.counterexample?.[0])?.slice(0, 2000);
    throw new Error(
      `fuzz property "${name}" failed. Reproduce with FUZZ_SEED=${details.seed} (fast-check seed ${details.seed}, path "${details.counterexamplePath}").\n` +
        `Counterexample: ${example}\nError: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    );
  }
}

describe(`fuzzing every write operation (seed ${SEED})`, () => {
  it("enumerates the write bindings from the protos", () => {
    expect(writeRoutes.length).toBeGreaterThan(50);
    expect(deleteRoutes.length).toBeGreaterThan(10);
  });

  // Before the management writes, which may put the environment behind an allowlist that new sessions cannot pass.
  it("REST SDK routes with a valid session: never a 5xx, every 4xx with the JSON error body", async () => {
    const prop = fc.asyncProperty(requestArb(sdkRoutes), async (req) => {
      const url = `${app.baseUrl}${req.path}${req.query ? `?${req.query}` : ""}`;
      const a = await send(req.verb, url, req.body, { authorization: `Bearer ${await sessionJwt()}` });
      checkRest(`${req.route} (${req.verb} ${req.path.slice(0, 200)}, signed in)`, a);
    });
    await assertProperty("REST SDK signed in", prop, SDK_RUNS);
  }, 120_000);

  it("Connect JSON SDK methods with a valid session: never an internal error", async () => {
    const arb = fc.constantFrom(...sdkUnaryMethods).chain(({ service, method }) =>
      fc.oneof({ weight: 4, arbitrary: messageBody(method.input) }, { weight: 1, arbitrary: anyJson }).map((body) => ({
        rpc: `/${service.typeName}/${method.name}`,
        body: toJsonText(body),
      })),
    );
    const prop = fc.asyncProperty(arb, async (req) => {
      const a = await send("POST", `${app.baseUrl}${req.rpc}`, req.body, { "connect-protocol-version": "1", authorization: `Bearer ${await sessionJwt()}` });
      if (a.status >= 500) throw new Error(`${req.rpc} answered ${a.status}: ${a.text.slice(0, 500)}`);
    });
    await assertProperty("Connect SDK signed in", prop, Math.ceil(SDK_RUNS / 2));
  }, 120_000);

  it("REST: never a 5xx, every 4xx with the JSON error body", async () => {
    const prop = fc.asyncProperty(requestArb(writeRoutes), async (req) => {
      const url = `${app.baseUrl}${req.path}${req.query ? `?${req.query}` : ""}`;
      checkRest(`${req.route} (${req.verb} ${req.path.slice(0, 200)})`, await send(req.verb, url, req.body));
    });
    await assertProperty("REST writes", prop, REST_RUNS);
    if (process.env.FUZZ_VERBOSE) console.log(Object.fromEntries(seen));
    // Some requests must have reached the handlers and succeeded, or the run proved little.
    expect(seen.get("2xx") ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it("Connect JSON: never an internal error for any unary RPC", async () => {
    const arb = fc.constantFrom(...unaryMethods).chain(({ service, method }) =>
      fc.oneof({ weight: 4, arbitrary: messageBody(method.input) }, { weight: 1, arbitrary: anyJson }).map((body) => ({
        rpc: `/${service.typeName}/${method.name}`,
        body: toJsonText(body),
      })),
    );
    const prop = fc.asyncProperty(arb, async (req) => {
      const a = await send("POST", `${app.baseUrl}${req.rpc}`, req.body, { "connect-protocol-version": "1" });
      if (a.status >= 500) throw new Error(`${req.rpc} answered ${a.status}: ${a.text.slice(0, 500)}`);
      if (a.status >= 400) {
        const b = JSON.parse(a.text) as { code?: unknown };
        if (typeof b.code !== "string") throw new Error(`${req.rpc} answered ${a.status} without a Connect error body: ${a.text.slice(0, 200)}`);
      }
    });
    await assertProperty("Connect JSON", prop, CONNECT_RUNS);
  }, 120_000);

  it("REST management reads with a valid token: never a 5xx, every 4xx with the JSON error body", async () => {
    const prop = fc.asyncProperty(requestArb(managementReads), async (req) => {
      const url = `${app.baseUrl}${req.path}${req.query ? `?${req.query}` : ""}`;
      checkRest(`${req.route} (${req.verb} ${req.path.slice(0, 200)})`, await send(req.verb, url, req.body));
    });
    await assertProperty("REST management reads", prop, READ_RUNS);
  }, 120_000);

  it("REST deletes: never a 5xx, every 4xx with the JSON error body", async () => {
    const prop = fc.asyncProperty(requestArb(deleteRoutes), async (req) => {
      const url = `${app.baseUrl}${req.path}${req.query ? `?${req.query}` : ""}`;
      checkRest(`${req.route} (${req.verb} ${req.path.slice(0, 200)})`, await send(req.verb, url, req.body));
    });
    await assertProperty("REST deletes", prop, DELETE_RUNS);
  }, 60_000);

  it("leaves the server healthy", async () => {
    const res = await fetch(`${app.baseUrl}/healthz`);
    expect(res.status, await res.text()).toBe(200);
  });
});
