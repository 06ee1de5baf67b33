import type { Interceptor } from "@connectrpc/connect";
import { badRequest } from "../../errors.js";
import { validateMessage } from "../validation.js";

/** Rejects requests that break their proto-declared rules with 400 before any handler runs. */
export function validationInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const violations = validateMessage(req.method.input, req.message as unknown as Record<string, unknown>);
      if (violations.length) {
        const summary = violations.map((v) => `${v.field} ${v.message}`).join("; ");
        throw badRequest("validation_error", `invalid request: ${summary}`, { errors: violations });
      }
    }
    return next(req);
  };
}
