import { createContextKey, type ContextKey } from "@connectrpc/connect";
import type { EndUserPrincipal, Principal, TokenPrincipal } from "../domain/auth/principal.js";
import type { ClientMeta } from "../domain/sessions/service.js";

/** Who is calling, as established by the authentication interceptor (declared by the domain). */
export type { Principal, TokenPrincipal } from "../domain/auth/principal.js";

export const principalKey = createContextKey<Principal>({ kind: "anonymous" }, { description: "caller" });
export const requestIdKey = createContextKey<string>("", { description: "request id" });
/**
 * The route template of a call the REST gateway made ("GET /api/v0/environments/{environmentId}/users"),
 * empty for a direct RPC call: the gateway writes the REST call's log line itself, with its HTTP status.
 */
export const restRouteKey = createContextKey<string>("", { description: "REST route" });
/**
 * Header the REST gateway uses to pass the client address of an in-process call; it overwrites whatever a
 * caller sent. Direct RPC calls carry the address in clientIpKey instead, so the header is never trusted
 * over it.
 */
export const CLIENT_IP_HEADER = "sigil-client-ip";

/** The header that carries an mfaToken to operations that ask for a fresh second factor. */
export const MFA_TOKEN_HEADER = "x-mfa-auth-token";

/**
 * The caller's network address, set by the HTTP adapter (or the gateway) for rate limiting and logs: the
 * socket peer, or behind a trusted proxy the address it forwarded (src/server/client-address.ts).
 */
export const clientIpKey = createContextKey<string>("", { description: "client ip" });

/**
 * The caller's address: the adapter's for direct RPC calls, else the one the REST gateway put in
 * CLIENT_IP_HEADER (it overwrites any caller-sent value). Both come from src/server/client-address.ts,
 * which believes X-Forwarded-For only from a trusted proxy (SIGIL_TRUSTED_PROXIES).
 */
export function clientAddress(ctx: { values: { get<T>(key: ContextKey<T>): T }; requestHeader: Headers }): string {
  return ctx.values.get(clientIpKey) || ctx.requestHeader.get(CLIENT_IP_HEADER) || "";
}

/** Either kind of token caller of a management handler (the authn interceptor guarantees one). */
export function tokenCaller(ctx: { values: { get<T>(key: ContextKey<T>): T } }): TokenPrincipal {
  const p = ctx.values.get(principalKey);
  if (p.kind === "anonymous" || p.kind === "end_user") throw new Error("management handler reached without a token principal");
  return p;
}

/** The signed-in end user of an SDK handler whose RPC declares AUTH_MODE_END_USER (authn guarantees one). */
export function endUserOf(ctx: { values: { get<T>(key: ContextKey<T>): T } }): EndUserPrincipal {
  const p = ctx.values.get(principalKey);
  if (p.kind !== "end_user") throw new Error("end-user handler reached without a session principal");
  return p;
}

/** Where an SDK call came from (kept on the session a sign-in opens, and in the audit trail). */
export function clientMetaOf(ctx: { values: { get<T>(key: ContextKey<T>): T }; requestHeader: Headers }): ClientMeta {
  return { ipAddress: clientAddress(ctx) || null, userAgent: ctx.requestHeader.get("user-agent"), requestId: ctx.values.get(requestIdKey) };
}
