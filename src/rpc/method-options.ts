import { getOption, hasOption, type DescField, type DescMethod } from "@bufbuild/protobuf";
import { AuthMode, field as fieldExt, method as methodExt, type FieldRules, type MethodRules } from "../gen/sigil/options/v0/options_pb.js";

// Options are read on every request (validation, presentation, authorization) and decoding an extension
// allocates each time, so each descriptor's rules are decoded once. Descriptors live as long as the process.
const methodCache = new WeakMap<DescMethod, MethodRules>();
const fieldCache = new WeakMap<DescField, FieldRules | null>();

/** The sigil.options.v0.method rules of an RPC (defaults when absent). */
export function methodRules(method: DescMethod): MethodRules {
  let rules = methodCache.get(method);
  if (!rules) methodCache.set(method, (rules = getOption(method, methodExt)));
  return rules;
}

export function authModeOf(method: DescMethod): AuthMode {
  const auth = methodRules(method).auth;
  return auth === AuthMode.UNSPECIFIED ? AuthMode.API_TOKEN : auth;
}

/** The sigil.options.v0.field rules of a field, or undefined when it has none. */
export function fieldRules(field: DescField): FieldRules | undefined {
  let rules = fieldCache.get(field);
  if (rules === undefined) fieldCache.set(field, (rules = hasOption(field, fieldExt) ? getOption(field, fieldExt) : null));
  return rules ?? undefined;
}
