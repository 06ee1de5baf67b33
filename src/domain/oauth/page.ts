import { createHash } from "node:crypto";

/** Escapes text for an HTML attribute or text node. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `body{font-family:system-ui,sans-serif;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}
a{padding:14px 24px;border-radius:8px;background:#1f2937;color:#fff;text-decoration:none;font-size:18px}`;

/** A CSP source that allows exactly this inline script or style and nothing else. */
const hashSource = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

export interface AuthorizePage {
  html: string;
  /** The headers the page must be served with (see authorizePageHeaders). */
  headers: Record<string, string>;
}

/**
 * The page carries the OAuth state and PKCE challenge, so it is locked down: nothing but its own inline
 * script and style may run (by hash, not 'unsafe-inline'), it cannot be framed (clickjacking) or cached
 * (a shared cache or the back button would replay the state), and it sends no Referer to the issuer.
 */
function authorizePageHeaders(script: string): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      `script-src ${hashSource(script)}`,
      `style-src ${hashSource(STYLE)}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

/**
 * A small mobile-friendly page that sends the browser on to the issuer: immediately by script, by meta
 * refresh where scripts are off, and by a button a person can tap. The URL is embedded as JSON for the
 * script and escaped for the markup, so nothing in it can break out of either.
 */
export function renderAuthorizePage(authorizationUrl: string, providerType: string): AuthorizePage {
  const href = escapeHtml(authorizationUrl);
  const script = `window.location.replace(${JSON.stringify(authorizationUrl).replace(/</g, "\\u003c")});`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url=${href}">
<title>Continue to sign in</title>
<style>${STYLE}</style>
</head>
<body>
<a id="continue" href="${href}" data-provider="${escapeHtml(providerType)}">Continue to sign in</a>
<script>${script}</script>
</body>
</html>
`;
  return { html, headers: authorizePageHeaders(script) };
}
