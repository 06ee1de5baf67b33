import type { Interceptor } from "@connectrpc/connect";
import type { Message } from "@bufbuild/protobuf";
import { unsafeTextViolations } from "../text-safety.js";
import { validateMessage, validationError } from "../validation.js";

/**
 * Rejects requests that break their proto-declared rules with 400 before any handler runs. Every string of
 * every request is also checked for text the store cannot keep as sent (NUL, unpaired surrogates), for
 * all RPCs alike, so no route can forget it.
 */
export function validationInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const violations = [
        ...unsafeTextViolations(req.method.input, req.message as Message),
        ...validateMessage(req.method.input, req.message as unknown as Record<string, unknown>),
      ];
      if (violations.length) throw validationError(violations);
    }
    return next(req);
  };
}
