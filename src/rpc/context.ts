import { createContextKey, type ContextKey } from "@connectrpc/connect";

/** Who is calling, as established by the authentication interceptor. */
export interface ApiTokenPrincipal {
  kind: "api_token";
  tokenId: string;
  /** The environment the token is bound to, and the project and organization that own it. */
  environmentId: string;
  projectId: string;
  organizationId: string;
  environmentName: "live" | "sandbox";
  /** The member on whose behalf the token acts (its creator), and that member's role. */
  memberId: string | null;
  role: string | null;
  permissions: readonly string[];
}

/**
 * A member (account) API token: not bound to an environment. It acts for its account in every organization
 * the account is a member of, with at most the permissions of the account's role there
 * (src/domain/tenancy/access.ts resolves that per call).
 */
export interface AccountTokenPrincipal {
  kind: "account_token";
  tokenId: string;
  accountId: string;
  permissions: readonly string[];
}

export interface AnonymousPrincipal {
  kind: "anonymous";
}

export type Principal = ApiTokenPrincipal | AccountTokenPrincipal | AnonymousPrincipal;
export type TokenPrincipal = ApiTokenPrincipal | AccountTokenPrincipal;

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

/**
 * The caller's socket address: the adapter's for direct RPC calls, else the one the REST gateway put in
 * CLIENT_IP_HEADER (it overwrites any caller-sent value). Forwarded-for headers are never read.
 */
export function clientAddress(ctx: { values: { get<T>(key: ContextKey<T>): T }; requestHeader: Headers }): string {
  return ctx.values.get(clientIpKey) || ctx.requestHeader.get(CLIENT_IP_HEADER) || "";
}

/** Either kind of token caller of a management handler (the authn interceptor guarantees one). */
export function tokenCaller(ctx: { values: { get<T>(key: ContextKey<T>): T } }): TokenPrincipal {
  const p = ctx.values.get(principalKey);
  if (p.kind === "anonymous") throw new Error("management handler reached without a token principal");
  return p;
}
