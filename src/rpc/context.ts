import { createContextKey } from "@connectrpc/connect";

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
/** The caller's network address, set by the HTTP adapter (or the gateway) for rate limiting and logs. */
export const clientIpKey = createContextKey<string>("", { description: "client ip" });

/** Narrows the principal of a management call; the authn interceptor guarantees it for API-token methods. */
export function requireApiToken(p: Principal): ApiTokenPrincipal {
  if (p.kind !== "api_token") throw new Error("management handler reached without an API token principal");
  return p;
}
