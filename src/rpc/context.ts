import { createContextKey, type ContextKey } from "@connectrpc/connect";

/** Who is calling, as established by the authentication interceptor. */
export interface ApiTokenPrincipal {
  kind: "api_token";
  tokenId: string;
  /** The environment the token is bound to, and the project and organization that own it. */
  environmentId: string;
  projectId: string;
  organizationId: string;
  /** The member on whose behalf the token acts (its creator). */
  memberId: string | null;
  permissions: readonly string[];
}

export interface AnonymousPrincipal {
  kind: "anonymous";
}

export type Principal = ApiTokenPrincipal | AnonymousPrincipal;

export const principalKey = createContextKey<Principal>({ kind: "anonymous" }, { description: "caller" });
export const requestIdKey = createContextKey<string>("", { description: "request id" });
/**
 * Header the REST gateway uses to pass the socket address of an in-process call; it overwrites whatever a
 * caller sent. Direct RPC calls carry the address in clientIpKey instead, so the header is never trusted
 * over it.
 */
export const CLIENT_IP_HEADER = "sigil-client-ip";

/** The caller's network address, set by the HTTP adapter (or the gateway) for rate limiting and logs. */
export const clientIpKey = createContextKey<string>("", { description: "client ip" });

/** The API-token caller of a management handler (the authn interceptor guarantees one). */
export function apiCaller(ctx: { values: { get<T>(key: ContextKey<T>): T } }): ApiTokenPrincipal {
  return requireApiToken(ctx.values.get(principalKey));
}

/** Narrows the principal of a management call; the authn interceptor guarantees it for API-token methods. */
export function requireApiToken(p: Principal): ApiTokenPrincipal {
  if (p.kind !== "api_token") throw new Error("management handler reached without an API token principal");
  return p;
}
