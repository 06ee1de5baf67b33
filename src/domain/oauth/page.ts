import { escapeHtml, lockedPage, type LockedPage } from "../pages/locked-page.js";

const STYLE = `body{font-family:system-ui,sans-serif;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}
a{padding:14px 24px;border-radius:8px;background:#1f2937;color:#fff;text-decoration:none;font-size:18px}`;

/**
 * A small mobile-friendly page that sends the browser on to the issuer: immediately by script, by meta
 * refresh where scripts are off, and by a button a person can tap. The URL is embedded as JSON for the
 * script and escaped for the markup, so nothing in it can break out of either. It carries the OAuth state
 * and PKCE challenge: locked down (src/domain/pages/locked-page.ts).
 */
export function renderAuthorizePage(authorizationUrl: string, providerType: string): LockedPage {
  const href = escapeHtml(authorizationUrl);
  return lockedPage({
    title: "Continue to sign in",
    style: STYLE,
    head: `<meta http-equiv="refresh" content="0; url=${href}">`,
    body: `<a id="continue" href="${href}" data-provider="${escapeHtml(providerType)}">Continue to sign in</a>`,
    script: `window.location.replace(${JSON.stringify(authorizationUrl).replace(/</g, "\\u003c")});`,
  });
}

/**
 * The page of the provider's callback and of the login redirect: a sentence and, when the browser is sent
 * on (303 with Location), a link to the same place. No script at all.
 */
export function renderRedirectPage(message: string, location: string | null): LockedPage {
  const link = location ? `\n<a href="${escapeHtml(location)}">Continue</a>` : "";
  return lockedPage({ title: message, style: STYLE, body: `<p>${escapeHtml(message)}</p>${link}` });
}
