import type { DescField } from "@bufbuild/protobuf";
import { AuthMode } from "../gen/sigil/options/v0/options_pb.js";
import { resolveFieldPath, type Route } from "../gateway/rules.js";
import type { DeclaredError } from "../rpc/declared-errors.js";
import { authModeOf, fieldRules, methodRules } from "../rpc/method-options.js";
import { errorResponses, gatewayErrors } from "./errors.js";
import type { SchemaRegistry } from "./schemas.js";
import type { Describe, JsonSchema, Operation, Parameter, Response } from "./types.js";

/** The security schemes of the document: the two kinds of bearer token the API takes. */
export const API_TOKEN_SCHEME = "apiToken";
export const END_USER_SCHEME = "endUserJwt";

const HTTP_BODY = "google.api.HttpBody";

export interface OperationContext {
  schemas: SchemaRegistry;
  describe: Describe;
  declaredErrors: (route: Route) => readonly DeclaredError[];
}

/** The OpenAPI path of a route: its template with each variable named by the field's JSON name. */
export function openApiPath(route: Route): string {
  return (
    "/" +
    route.segments
      .map((s) => (s.kind === "literal" ? s.value : `{${jsonPath(resolveFieldPath(route.method.input, s.fieldPath, route.template))}}`))
      .join("/")
  );
}

function jsonPath(fields: readonly DescField[]): string {
  return fields.map((f) => f.jsonName).join(".");
}

/** One route as an operation, true to how the gateway transcodes it (src/gateway/request.ts, response.ts). */
export function buildOperation(route: Route, operationId: string, ctx: OperationContext): Operation {
  const method = route.method;
  const rules = methodRules(method);
  const input = method.input;

  const pathBound = new Set<DescField>();
  const parameters: Parameter[] = [];
  for (const seg of route.segments) {
    if (seg.kind !== "variable") continue;
    const fields = resolveFieldPath(input, seg.fieldPath, route.template);
    pathBound.add(fields[0]);
    const leaf = fields[fields.length - 1];
    parameters.push(describeParam({ name: jsonPath(fields), in: "path", required: true, schema: ctx.schemas.fieldSchema(leaf, "in") }, ctx.describe(leaf)));
  }

  // Query parameters: the fields neither the path nor the body binds (a body of "*" binds them all).
  const bodyField = route.body !== "" && route.body !== "*" ? resolveFieldPath(input, route.body, route.template)[0] : undefined;
  if (route.body !== "*") {
    for (const field of input.fields) {
      if (pathBound.has(field) || field === bodyField || field.fieldKind === "map") continue;
      parameters.push(queryParameter(field, ctx));
    }
  }

  let requestBody: Operation["requestBody"];
  let rawBody = false;
  if (route.body === "*") {
    requestBody = { content: { "application/json": { schema: ctx.schemas.objectSchema(input, "in", pathBound) } } };
  } else if (bodyField) {
    rawBody = bodyField.message?.typeName === HTTP_BODY;
    // A google.api.HttpBody field takes the body as sent, whatever its type: in this API, the form a
    // provider posts back to a browser step (OAuth's form_post), so that is what the document names.
    requestBody = rawBody
      ? { content: { "application/x-www-form-urlencoded": { schema: { type: "object", additionalProperties: { type: "string" } } } } }
      : { content: { "application/json": { schema: ctx.schemas.fieldSchema(bodyField, "in") } } };
  }

  const status = rules.successStatus || 200;
  const responses: Record<string, Response> = { [String(status)]: successResponse(route, status, ctx) };
  if (answersHttpBody(route)) {
    // A browser step may send the browser on (src/gateway/index.ts: a handler's Location makes the answer 303).
    responses["303"] = {
      description: "See other: the browser continues at the Location, with the same page as the body.",
      headers: { Location: { schema: { type: "string", format: "uri-reference" } } },
      content: { "text/html": { schema: { type: "string" } } },
    };
  }
  const hasQuery = parameters.some((p) => p.in === "query");
  Object.assign(responses, errorResponses([...gatewayErrors(route, hasQuery, rawBody), ...ctx.declaredErrors(route)]));

  const auth = authModeOf(method);
  const doc = ctx.describe(method);
  const summary = summaryOf(method.name);
  const op: Operation = {
    operationId,
    tags: [tagOf(route)],
    summary,
    description: doc,
    security: auth === AuthMode.NONE ? [] : [{ [auth === AuthMode.END_USER ? END_USER_SCHEME : API_TOKEN_SCHEME]: [] }],
    parameters: parameters.length ? parameters : undefined,
    requestBody,
    responses,
    "x-rpc": `${method.parent.typeName}/${method.name}`,
  };
  if (auth === AuthMode.API_TOKEN && rules.permission) {
    op["x-permission"] = rules.permission;
    op.description = `${op.description ? op.description + "\n\n" : ""}Requires the \`${rules.permission}\` permission.`;
  }
  if (method.deprecated) op.deprecated = true;
  return op;
}

/** Tags group operations by service, named as the service is (without its package). */
export function tagOf(route: Route): string {
  return route.service.name;
}

/** "CreateAllowlistEntry" reads "Create allowlist entry": a short title of the same form for every operation. */
function summaryOf(methodName: string): string {
  const words = methodName.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").split(" ");
  return words
    .map((w, i) => (i === 0 || /^[A-Z0-9]+$/.test(w) ? w : w.toLowerCase()))
    .join(" ")
    .replace(/\bO auth\b/gi, "OAuth");
}

function describeParam(p: Parameter, doc: string | undefined): Parameter {
  return doc ? { ...p, description: doc } : p;
}

/**
 * A query parameter per field (src/gateway/request.ts): repeated fields repeat the key, and a message's
 * fields are reached as `field[sub]` (or `field.sub`), which is OpenAPI's deepObject style.
 */
function queryParameter(field: DescField, ctx: OperationContext): Parameter {
  const schema: JsonSchema = ctx.schemas.fieldSchema(field, "in");
  const p: Parameter = { name: field.jsonName, in: "query", schema };
  // The validation interceptor refuses a call without it (400 validation_error).
  if (fieldRules(field)?.required) p.required = true;
  if (field.fieldKind === "message" && isObjectSchema(schema, ctx)) {
    p.style = "deepObject";
    p.explode = true;
  } else if (field.fieldKind === "list") {
    p.style = "form";
    p.explode = true;
  }
  return describeParam(p, ctx.describe(field));
}

function isObjectSchema(schema: JsonSchema, ctx: OperationContext): boolean {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema.type === "object";
  return ctx.schemas.components[ref.split("/").pop()!]?.type === "object";
}

function successResponse(route: Route, status: number, ctx: OperationContext): Response {
  if (status === 204) return { description: "Done; no content." };
  const method = route.method;
  if (method.methodKind === "server_streaming") {
    // The first message of the stream names the Content-Type (src/gateway/stream.ts).
    // A JSON file (an export in the json format) is declared as such: a client, or a fuzzer checking
    // answers against the document, parses it as JSON rather than as opaque bytes.
    return {
      description: "The file, streamed, with its own Content-Type and Content-Disposition.",
      content: { "application/json": { schema: {} }, "*/*": { schema: { type: "string", format: "binary" } } },
    };
  }
  // google.api.HttpBody answers (a browser page, a file) carry the content type their handler gives them.
  if (answersHttpBody(route)) return { description: "The page or file, with the Content-Type its handler gives it.", content: { "*/*": { schema: { type: "string" } } } };
  const leaf = responseField(route);
  const schema = leaf ? ctx.schemas.fieldSchema(leaf, "out") : ctx.schemas.ref(method.output, "out");
  return { description: "Success.", content: { "application/json": { schema } } };
}

/** The output field the route answers (its `response_body`), or undefined when it answers the whole message. */
function responseField(route: Route): DescField | undefined {
  if (route.responseBody === "") return undefined;
  const fields = resolveFieldPath(route.method.output, route.responseBody, route.template);
  return fields[fields.length - 1];
}

/** Whether the route answers a google.api.HttpBody (a page for a browser, a file) rather than JSON. */
function answersHttpBody(route: Route): boolean {
  const leaf = responseField(route);
  return (leaf ? leaf.message?.typeName : route.method.output.typeName) === HTTP_BODY;
}
