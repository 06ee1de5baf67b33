import type { DescField } from "@bufbuild/protobuf";
import { HttpBodySchema, type HttpBody } from "../gen/google/api/httpbody_pb.js";
import { methodRules } from "../rpc/method-options.js";
import { presentFieldJson, presentJson } from "./present.js";
import { resolveFieldPath, type Route } from "./rules.js";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A finished HTTP answer; `body` undefined means none at all (204). */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Turns a handler's result (a response message or its init shape, see present.ts) into the REST answer: the
 * status declared on the RPC (`success_status`, 200 by default), only the `response_body` field when the rule
 * names one, raw bytes for google.api.HttpBody (HTML pages and the like) and the presented JSON otherwise.
 */
export function renderSuccess(route: Route, output: unknown): Rendered {
  const status = methodRules(route.method).successStatus || 200;
  if (status === 204) return { status, headers: {} };

  const schema = route.method.output;
  if (route.responseBody === "") {
    if (schema.typeName === HttpBodySchema.typeName) return httpBody(status, output as Partial<HttpBody>);
    return json(status, presentJson(schema, output));
  }

  // Walk the response_body path; the last field is what the client gets.
  const fields = resolveFieldPath(schema, route.responseBody, route.template);
  let parent = output;
  for (const f of fields.slice(0, -1)) {
    parent = fieldValue(parent, f);
    if (f.fieldKind !== "message" || parent === undefined) return json(status, "null");
  }
  const leaf = fields[fields.length - 1];
  if (leaf.fieldKind === "message" && leaf.message.typeName === HttpBodySchema.typeName) {
    // An unset page is an empty one rather than a JSON null in an HTML response.
    return httpBody(status, fieldValue(parent, leaf) as Partial<HttpBody> | undefined);
  }
  const text = presentFieldJson(leaf, parent);
  return json(status, text ?? (leaf.fieldKind === "list" ? "[]" : "null"));
}

/** A field's value on a message or init shape: plain properties, oneof members under their group. */
function fieldValue(message: unknown, field: DescField): unknown {
  const m = (message ?? {}) as Record<string, unknown>;
  if (field.oneof) {
    const group = m[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
    return group?.case === field.localName ? group.value : undefined;
  }
  return m[field.localName];
}

function json(status: number, body: string): Rendered {
  return { status, headers: { "content-type": JSON_CONTENT_TYPE }, body };
}

function httpBody(status: number, body: Partial<HttpBody> | undefined): Rendered {
  return {
    status,
    headers: { "content-type": body?.contentType || "application/octet-stream" },
    body: body?.data ?? new Uint8Array(0),
  };
}
