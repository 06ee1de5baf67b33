/** Escapes text for an HTML attribute or text node. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * A small mobile-friendly page that sends the browser on to the issuer: immediately by script, by meta
 * refresh where scripts are off, and by a button a person can tap. The URL is embedded as JSON for the
 * script and escaped for the markup, so nothing in it can break out of either.
 */
export function renderAuthorizePage(authorizationUrl: string, providerType: string): string {
  const href = escapeHtml(authorizationUrl);
  const js = JSON.stringify(authorizationUrl).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url=${href}">
<title>Continue to sign in</title>
<style>body{font-family:system-ui,sans-serif;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}
a{padding:14px 24px;border-radius:8px;background:#1f2937;color:#fff;text-decoration:none;font-size:18px}</style>
</head>
<body>
<a id="continue" href="${href}" data-provider="${escapeHtml(providerType)}">Continue to sign in</a>
<script>window.location.replace(${js});</script>
</body>
</html>
`;
}
