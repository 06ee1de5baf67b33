import type { Interceptor } from "@connectrpc/connect";
import type { DescMessage, Message } from "@bufbuild/protobuf";
import { unsafeTextViolations } from "../text-safety.js";
import { validateMessage, validationError } from "../validation.js";
import { firstMessage } from "./first-message.js";

/**
 * Rejects requests that break their proto-declared rules with 400 before any handler runs. Every string of
 * every request is also checked for text the store cannot keep as sent (NUL, unpaired surrogates), for
 * all RPCs alike, so no route can forget it. A server stream's one request message is checked the same way.
 */
export function validationInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      check(req.method.input, req.message as Message);
      return next(req);
    }
    // Client and bidi streams (gRPC reflection) are read by their handlers as messages come.
    if (req.method.methodKind !== "server_streaming") return next(req);
    const first = await firstMessage(req);
    if (first.message) check(req.method.input, first.message);
    return next(first.req);
  };
}

function check(schema: DescMessage, message: Message): void {
  const violations = [...unsafeTextViolations(schema, message), ...validateMessage(schema, message as unknown as Record<string, unknown>)];
  if (violations.length) throw validationError(violations);
}
