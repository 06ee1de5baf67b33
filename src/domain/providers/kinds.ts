/**
 * Scopes asked for when an OAuth provider configures none. Which provider kinds sign in through OAuth is
 * declared once, in the proto (the allowed values of OauthAuthorizeHtmlRequest.provider_type).
 */
export function defaultScopes(kind: string): string {
  return kind === "oidc" || kind === "partner" ? "openid email profile" : "";
}
