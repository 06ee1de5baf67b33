import { type JsonValue, type Message } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { HttpBodySchema, type HttpBody } from "../gen/google/api/httpbody_pb.js";
import { methodRules } from "../rpc/method-options.js";
import { presentMessage } from "./present.js";
import { resolveFieldPath, type Route } from "./rules.js";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A finished HTTP answer; `body` undefined means none at all (204). */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Turns a handler's response message into the REST answer: the status declared on the RPC
 * (`success_status`, 200 by default), only the `response_body` field when the rule names one, raw bytes for
 * google.api.HttpBody (HTML pages and the like) and the presented JSON otherwise.
 */
export function renderSuccess(route: Route, output: Message): Rendered {
  const status = methodRules(route.method).successStatus || 200;
  if (status === 204) return { status, headers: {} };

  const schema = route.method.output;
  if (route.responseBody === "") {
    if (schema.typeName === HttpBodySchema.typeName) return httpBody(status, output as HttpBody);
    return json(status, presentMessage(schema, output));
  }

  // Walk the response_body path; the last field is what the client gets.
  const fields = resolveFieldPath(schema, route.responseBody, route.template);
  let r = reflect(schema, output);
  for (const f of fields.slice(0, -1)) {
    if (f.fieldKind !== "message" || !r.isSet(f)) return json(status, null);
    r = r.get(f);
  }
  const leaf = fields[fields.length - 1];
  if (leaf.fieldKind === "message") {
    if (leaf.message.typeName === HttpBodySchema.typeName) {
      // An unset page is an empty one rather than a JSON null in an HTML response.
      return httpBody(status, r.isSet(leaf) ? (r.get(leaf).message as HttpBody) : undefined);
    }
    if (!r.isSet(leaf)) return json(status, null);
    const sub = r.get(leaf);
    return json(status, presentMessage(sub.desc, sub.message));
  }
  // Lists, maps and scalars: present the parent and pick the field, so list items get the same treatment.
  const parent = presentMessage(r.desc, r.message);
  const value = parent !== null && typeof parent === "object" && !Array.isArray(parent) ? parent[leaf.jsonName] : undefined;
  return json(status, value === undefined ? (leaf.fieldKind === "list" ? [] : null) : value);
}

function json(status: number, value: JsonValue): Rendered {
  return { status, headers: { "content-type": JSON_CONTENT_TYPE }, body: JSON.stringify(value) };
}

function httpBody(status: number, body: HttpBody | undefined): Rendered {
  return {
    status,
    headers: { "content-type": body?.contentType || "application/octet-stream" },
    body: body?.data ?? new Uint8Array(0),
  };
}
