import { createHash } from "node:crypto";

/** Escapes text for an HTML attribute or text node. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A value as JSON inside an inline script: no `</script>` can close it early. */
export const asScriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");

/** A CSP source that allows exactly this inline script or style and nothing else. */
const hashSource = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** A page and the headers it must be served with. */
export interface LockedPage {
  html: string;
  headers: Record<string, string>;
}

/**
 * The sign-in pages the SDK surface serves (OAuth authorize and callback pages, the chat widget page) carry
 * states and one-time codes, so they are locked down alike: nothing runs but their own inline script and
 * style (by hash, never 'unsafe-inline') plus the sources a page names, they cannot be framed
 * (clickjacking) or cached (a shared cache or the back button would replay a state), and they send no
 * Referer. `body` is markup the caller has escaped; `head` extra head markup (also escaped).
 */
export function lockedPage(opts: {
  title: string;
  style: string;
  body: string;
  head?: string;
  script?: string;
  /** More script sources (an origin, 'unsafe-eval') and more directives, for a page that embeds a widget. */
  scriptSources?: string[];
  directives?: string[];
}): LockedPage {
  const script = opts.script ? `\n<script>${opts.script}</script>` : "";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">${opts.head ? `\n${opts.head}` : ""}
<title>${escapeHtml(opts.title)}</title>
<style>${opts.style}</style>
</head>
<body>
${opts.body}${script}
</body>
</html>
`;
  const scriptSrc = [...(opts.script ? [hashSource(opts.script)] : []), ...(opts.scriptSources ?? [])];
  return {
    html,
    headers: {
      "content-security-policy": [
        "default-src 'none'",
        `script-src ${scriptSrc.length ? scriptSrc.join(" ") : "'none'"}`,
        `style-src ${hashSource(opts.style)}`,
        ...(opts.directives ?? []),
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join("; "),
      "x-frame-options": "DENY",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    },
  };
}
