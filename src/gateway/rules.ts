import { getOption, hasOption, type DescField, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { http } from "../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../gen/google/api/http_pb.js";
import { checkFileStream } from "./stream.js";

/** One segment of a path template: a literal to compare, or a variable that binds a (possibly dotted) field. */
export type Segment = { kind: "literal"; value: string } | { kind: "variable"; fieldPath: string };

/** One REST binding of an RPC, read from its google.api.http rule (or one of its additional_bindings). */
export interface Route {
  readonly service: DescService;
  readonly method: DescMethod;
  /** Upper-case HTTP verb. */
  readonly verb: string;
  readonly template: string;
  readonly segments: readonly Segment[];
  /** Used to prefer `/users/me` over `/users/{id}` when both match. */
  readonly literalCount: number;
  /** "" (no body), "*" (whole body) or the proto name of the one request field the body fills. */
  readonly body: string;
  /** "" (whole response) or the proto name of the response field to serialise alone. */
  readonly responseBody: string;
}

export type MatchResult =
  | { kind: "found"; route: Route; pathParams: Map<string, string> }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

/**
 * The rule table, built once at startup from the descriptors. A malformed or unsupported annotation throws
 * here rather than misrouting at request time.
 */
export function buildRoutes(services: readonly DescService[]): Route[] {
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      // Unary RPCs answer one document; a server stream is a file download (stream.ts) and is checked
      // for that shape here. Client and bidirectional streams have no REST shape.
      if (method.methodKind === "server_streaming") checkFileStream(method);
      else if (method.methodKind !== "unary") continue;
      const rule = getOption(method, http);
      for (const r of [rule, ...rule.additionalBindings]) {
        routes.push(toRoute(service, method, r));
      }
    }
  }
  // Stable sort: among equally specific templates the declaration order decides.
  return routes.sort((a, b) => b.literalCount - a.literalCount);
}

function toRoute(service: DescService, method: DescMethod, rule: HttpRule): Route {
  const where = `${method.parent.typeName}.${method.name}`;
  let verb: string;
  let template: string;
  switch (rule.pattern.case) {
    case "get":
    case "put":
    case "post":
    case "delete":
    case "patch":
      verb = rule.pattern.case.toUpperCase();
      template = rule.pattern.value;
      break;
    case "custom":
      verb = rule.pattern.value.kind.toUpperCase();
      template = rule.pattern.value.path;
      break;
    default:
      throw new Error(`google.api.http rule of ${where} has no pattern`);
  }
  const segments = parseTemplate(template, where);
  for (const s of segments) {
    if (s.kind === "variable") resolveFieldPath(method.input, s.fieldPath, where);
  }
  if (rule.body !== "" && rule.body !== "*") resolveFieldPath(method.input, rule.body, where);
  if (rule.responseBody !== "") resolveFieldPath(method.output, rule.responseBody, where);
  return {
    service,
    method,
    verb,
    template,
    segments,
    literalCount: segments.filter((s) => s.kind === "literal").length,
    body: rule.body,
    responseBody: rule.responseBody,
  };
}

/** Parses `/a/{b}/c/{d=*}`. Multi-segment variables (`**`, `{x=a/*}`) and verbs are not needed by our API. */
export function parseTemplate(template: string, where = template): Segment[] {
  if (!template.startsWith("/")) throw new Error(`path template of ${where} must start with /: ${template}`);
  return splitPath(template).map((part) => {
    const m = /^\{([A-Za-z_][A-Za-z0-9_.]*)(?:=\*)?\}$/.exec(part);
    if (m) return { kind: "variable", fieldPath: m[1] } as const;
    if (part.includes("{") || part.includes("}") || part.includes("*")) {
      throw new Error(`unsupported path template segment "${part}" in ${where}: ${template}`);
    }
    return { kind: "literal", value: part } as const;
  });
}

/** Splits a path into its segments, ignoring one trailing slash so `/tokens/` matches `/tokens`. */
export function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/").slice(1);
}

/** Resolves `a.b.c` through message fields of `schema`; throws at startup when the annotation is wrong. */
export function resolveFieldPath(schema: DescMessage, fieldPath: string, where: string): DescField[] {
  const out: DescField[] = [];
  let current: DescMessage | undefined = schema;
  for (const name of fieldPath.split(".")) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`google.api.http rule of ${where} names unknown field "${fieldPath}"`);
    out.push(field);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return out;
}

/** Routes by their number of segments, in their order: a path is only compared with routes of its length. */
const byLength = new WeakMap<readonly Route[], Map<number, Route[]>>();

function routesOfLength(routes: readonly Route[], length: number): readonly Route[] {
  let index = byLength.get(routes);
  if (!index) {
    index = new Map();
    for (const r of routes) {
      const list = index.get(r.segments.length) ?? [];
      list.push(r);
      index.set(r.segments.length, list);
    }
    byLength.set(routes, index);
  }
  return index.get(length) ?? [];
}

/**
 * Finds the route of a request. Routes are pre-sorted by specificity, so the first one whose path and verb
 * match wins. When the path matches but not the verb, the caller learns which verbs the path accepts.
 */
export function matchRoute(routes: readonly Route[], verb: string, path: string): MatchResult {
  const parts = splitPath(path);
  let allow: Set<string> | undefined;
  for (const route of routesOfLength(routes, parts.length)) {
    if (!literalsMatch(route.segments, parts)) continue;
    if (route.verb === verb) return { kind: "found", route, pathParams: bindVariables(route.segments, parts) };
    (allow ??= new Set()).add(route.verb);
  }
  return allow ? { kind: "method_not_allowed", allow: [...allow].sort() } : { kind: "not_found" };
}

/** Same length assumed; a variable binds exactly one non-empty segment. */
function literalsMatch(segments: readonly Segment[], parts: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.kind === "literal" ? seg.value !== parts[i] : parts[i] === "") return false;
  }
  return true;
}

/** Path variables keep their raw (still percent-encoded) text; the request builder decodes them. */
function bindVariables(segments: readonly Segment[], parts: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.kind === "variable") params.set(seg.fieldPath, parts[i]);
  }
  return params;
}
