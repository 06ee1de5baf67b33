import { getOption, hasOption, type DescField, type DescMethod } from "@bufbuild/protobuf";
import { AuthMode, field as fieldExt, method as methodExt, type FieldRules, type MethodRules } from "../gen/sigil/options/v0/options_pb.js";

/** The sigil.options.v0.method rules of an RPC (defaults when absent). */
export function methodRules(method: DescMethod): MethodRules {
  return getOption(method, methodExt);
}

export function authModeOf(method: DescMethod): AuthMode {
  const auth = methodRules(method).auth;
  return auth === AuthMode.UNSPECIFIED ? AuthMode.API_TOKEN : auth;
}

/** The sigil.options.v0.field rules of a field, or undefined when it has none. */
export function fieldRules(field: DescField): FieldRules | undefined {
  return hasOption(field, fieldExt) ? getOption(field, fieldExt) : undefined;
}
