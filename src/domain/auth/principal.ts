/**
 * Who is calling. A token's principal is what its stored row grants (src/db/repositories/tokens.ts finds
 * it by the token's hash); the authentication interceptor puts one on every call's context.
 */
import type { TokenPrincipal } from "../../db/repositories/tokens.js";
import type { SessionClaims } from "../sessions/tokens.js";

export type { TokenPrincipal };

/** A call without credentials: only public methods accept it. */
export interface AnonymousPrincipal {
  kind: "anonymous";
}

/**
 * An end user calling an SDK operation with their session token (src/domain/sessions/service.ts checks it):
 * who they are, their session and what the token grants.
 */
export type EndUserPrincipal = { kind: "end_user" } & SessionClaims;

export type Principal = TokenPrincipal | AnonymousPrincipal | EndUserPrincipal;
