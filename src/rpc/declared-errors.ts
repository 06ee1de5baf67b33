import { ScalarType, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { AuthMode, type MethodRules } from "../gen/sigil/options/v0/options_pb.js";
import { kindToHttpStatus, type ErrorKind } from "../errors.js";
import { authModeOf, fieldRules, methodRules } from "./method-options.js";
import { tenantPlanOf } from "./tenant-rules.js";

/** One error an RPC may answer: the body's `code` and the REST status. */
export interface DeclaredError {
  code: string;
  status: number;
}

const error = (kind: ErrorKind, code: string): DeclaredError => ({ code, status: kindToHttpStatus[kind] });

/**
 * What every Sigil RPC may answer whatever it does: the interceptors count every call against a rate limit
 * (src/rpc/interceptors/rate-limit.ts), any layer may find Postgres, the store or Temporal down
 * (src/infra/dependency-errors.ts classifies what any of them throws) and anything unexpected is a 500.
 */
const ALWAYS: readonly DeclaredError[] = [
  error("rate_limited", "rate_limited"),
  error("unavailable", "database_unavailable"),
  error("unavailable", "store_unavailable"),
  error("unavailable", "workflow_engine_unavailable"),
  error("internal", "internal"),
];

const cache = new WeakMap<DescMethod, readonly DeclaredError[]>();

/**
 * Every error an RPC may answer: its own `errors` declaration (sigil.options.v0.method) and the ones its
 * other rules imply, read off the same declarations the interceptors act on. Deduplicated, sorted by status
 * then code. The OpenAPI document lists these, and the test run refuses any other (src/rpc/undeclared-errors.ts).
 */
export function declaredErrors(method: DescMethod): DeclaredError[] {
  return listOf(method).map((e) => ({ ...e }));
}

/** Whether `declaredErrors(method)` has this (code, status): the error path's question, without copies. */
export function isDeclared(method: DescMethod, code: string, status: number): boolean {
  return listOf(method).some((e) => e.code === code && e.status === status);
}

function listOf(method: DescMethod): readonly DeclaredError[] {
  let list = cache.get(method);
  if (!list) cache.set(method, (list = collect(method)));
  return list;
}

function collect(method: DescMethod): DeclaredError[] {
  const rules = methodRules(method);
  const out = [...ALWAYS, ...impliedByAuth(method, rules), ...impliedByTenant(method)];
  // The validation interceptor checks the declared field rules and every string of the request for text
  // the store cannot keep (src/rpc/interceptors/validation.ts): 400 validation_error.
  if (validates(method.input)) out.push(error("bad_request", "validation_error"));
  for (const e of rules.errors) out.push({ code: e.code, status: e.status });
  const seen = new Map<string, DeclaredError>();
  for (const e of out) seen.set(`${e.status} ${e.code}`, e);
  return [...seen.values()].sort((a, b) => a.status - b.status || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/** src/rpc/interceptors/authn.ts and what it calls. */
function impliedByAuth(method: DescMethod, rules: MethodRules): DeclaredError[] {
  switch (authModeOf(method)) {
    case AuthMode.NONE:
      return [];
    case AuthMode.END_USER:
      return [
        // No or a malformed Authorization header.
        error("unauthenticated", "unauthorized"),
        // A bad signature, an expired or revoked session, another environment's token.
        error("unauthenticated", "invalid_session"),
        // The environment id authentication verifies against is checked before any lookup.
        error("bad_request", "validation_error"),
        ...(rules.mfaPendingAllowed ? [] : [error("forbidden", "mfa_required")]),
      ];
    default:
      return [
        // No, a malformed, an unknown, inactive or deleted API token.
        error("unauthenticated", "unauthorized"),
        // The token (or, for an account token, the member's role) lacks the declared permission.
        ...(rules.permission ? [error("forbidden", "forbidden")] : []),
      ];
  }
}

/** src/rpc/interceptors/tenancy.ts: an id that is not the caller's is a 404, like one that does not exist. */
function impliedByTenant(method: DescMethod): DeclaredError[] {
  const plan = tenantPlanOf(method);
  switch (plan.scope) {
    case "public":
    case "environment":
    case "project":
    case "organization":
      return [error("not_found", "not_found")];
    case "account":
      // An environment token: the account's resource is not there (404), or the call needs an account token (403).
      return plan.field ? [error("not_found", "not_found")] : [error("forbidden", "account_token_required")];
    case "service":
    case "caller":
      return [];
  }
}

/** Whether the validation interceptor can refuse this input: a field with rules, or a string anywhere in it. */
function validates(input: DescMessage, seen = new Set<DescMessage>()): boolean {
  if (seen.has(input)) return false;
  seen.add(input);
  for (const f of input.fields) {
    if (fieldRules(f)) return true;
    switch (f.fieldKind) {
      case "scalar":
        if (f.scalar === ScalarType.STRING) return true;
        break;
      case "list":
        if (f.listKind === "scalar" && f.scalar === ScalarType.STRING) return true;
        if (f.listKind === "message" && validates(f.message, seen)) return true;
        break;
      case "map":
        if (f.mapKey === ScalarType.STRING) return true;
        if (f.mapKind === "scalar" && f.scalar === ScalarType.STRING) return true;
        if (f.mapKind === "message" && validates(f.message, seen)) return true;
        break;
      case "message":
        if (validates(f.message, seen)) return true;
        break;
      case "enum":
        break;
    }
  }
  return false;
}
