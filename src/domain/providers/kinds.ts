/**
 * Provider kinds that sign users in through an OAuth 2 authorization-code flow. The spec replaces vendor
 * names with neutral words (partner, chat, commerce); oidc and oauth2 configure any issuer by URL.
 */
export const OAUTH_PROVIDER_KINDS: ReadonlySet<string> = new Set(["oidc", "oauth2", "partner", "chat", "commerce"]);

/** Scopes asked for when the provider configures none. */
export function defaultScopes(kind: string): string {
  return kind === "oidc" ? "openid email profile" : "";
}
