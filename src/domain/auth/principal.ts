/**
 * Who is calling. A token's principal is what its stored row grants (src/db/repositories/tokens.ts finds
 * it by the token's hash); the authentication interceptor puts one on every call's context.
 */
import type { TokenPrincipal } from "../../db/repositories/tokens.js";

export type { TokenPrincipal };

/** A call without credentials: only public methods accept it. */
export interface AnonymousPrincipal {
  kind: "anonymous";
}

export type Principal = TokenPrincipal | AnonymousPrincipal;
