import type { Route } from "../gateway/rules.js";
import type { DeclaredError } from "../rpc/declared-errors.js";
import type { JsonSchema, Response } from "./types.js";

/** The spec's error body (src/gateway/errors.ts, ErrorBody), a component every error answer refers to. */
export const ERROR_BODY_NAME = "Error";
export const ERROR_BODY_SCHEMA: JsonSchema = {
  type: "object",
  description: "The body of every error answer. `code` is stable and meant for programs; `error` is for people.",
  properties: {
    error: { type: "string", description: "What went wrong, in words." },
    code: { type: "string", description: "Stable snake_case identifier of the error." },
    payload: { type: "object", additionalProperties: true, description: "Structured detail, e.g. the violated fields." },
  },
  required: ["error", "code"],
};

/**
 * The errors the gateway answers by itself for a route, before or around the RPC (src/gateway/index.ts,
 * request.ts, body.ts, errors.ts): a body it cannot read, a parameter it cannot convert, and the opaque 500.
 */
export function gatewayErrors(route: Route, hasQuery: boolean, rawBody: boolean): DeclaredError[] {
  // 431: the HTTP server's own answer to a request line or headers over Node's limit, before any route
  // (src/server/client-error.ts); any operation can meet it with a URL long enough.
  const out: DeclaredError[] = [
    { code: "internal", status: 500 },
    { code: "request_header_fields_too_large", status: 431 },
  ];
  if (route.body !== "") {
    out.push({ code: "payload_too_large", status: 413 });
    if (!rawBody) {
      out.push({ code: "malformed_json", status: 400 }, { code: "invalid_request_body", status: 400 }, { code: "unsupported_media_type", status: 415 });
    }
  }
  if (route.segments.some((s) => s.kind === "variable")) out.push({ code: "invalid_path_parameter", status: 400 });
  if (hasQuery) out.push({ code: "invalid_query_parameter", status: 400 });
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Not authenticated",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Request body too large",
  415: "Unsupported media type",
  422: "Unprocessable",
  429: "Rate limited",
  431: "Request line or headers too large",
  500: "Internal error",
  501: "Not implemented",
  502: "Bad gateway",
  503: "A dependency is unavailable",
};

/**
 * One response per status, its `code` an `enum` of exactly the codes the operation declares for that status,
 * so that a client (or a fuzzer's schema check) sees an undeclared code as a breach of the document.
 */
export function errorResponses(errors: readonly DeclaredError[]): Record<string, Response> {
  const byStatus = new Map<number, Set<string>>();
  for (const e of errors) {
    const codes = byStatus.get(e.status) ?? new Set<string>();
    codes.add(e.code);
    byStatus.set(e.status, codes);
  }
  const out: Record<string, Response> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = [...byStatus.get(status)!].sort();
    const response: Response = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${codes.map((c) => `\`${c}\``).join(", ")}`,
      content: {
        "application/json": {
          schema: { allOf: [{ $ref: `#/components/schemas/${ERROR_BODY_NAME}` }, { properties: { code: { enum: codes } } }] },
        },
      },
    };
    if (status === 429 || status === 503) {
      response.headers = { "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } } };
    }
    out[String(status)] = response;
  }
  return out;
}
