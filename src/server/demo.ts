import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sendBody, type Req, type Res } from "./replies.js";

/** Where `npm run build:demo` (scripts/build-demo.ts) writes the page: demo/dist at the repository's root. */
const DEFAULT_DEMO_DIR = fileURLToPath(new URL("../../demo/dist/", import.meta.url));

/** The built page's file types; any other name is not the page's. */
const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** One file of the flat build output: no directory part, no dot file, so no name reaches outside it. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * The page may load only its own files and call only its own origin (the API); nothing may frame it (no
 * clickjacking of its buttons) and no referrer leaves it.
 */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

export const DEMO_METHODS = ["GET", "HEAD"] as const;

/** Whether `path` is the demo's: /demo and everything under /demo/. */
export const isDemoPath = (path: string) => path === "/demo" || path.startsWith("/demo/");

/**
 * Serves the demo client app (demo/, built into demo/dist) at /demo/: a static page that calls only the
 * public SDK API of this origin. /demo redirects to /demo/ (keeping the query, e.g. ?environmentId=…) so the
 * page's relative URLs resolve under it. Answers true when the path was the demo's.
 */
export function createDemoFiles(dir = DEFAULT_DEMO_DIR) {
  // Errors in the API's error body, as every other path of this port answers them.
  const refuse = (res: Res, status: number, code: string, error: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify({ error, code }));
  };

  return function serveDemo(urlPath: string, req: Req, res: Res): boolean {
    if (!isDemoPath(urlPath)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      refuse(res, 405, "method_not_allowed", `method ${req.method} not allowed on ${urlPath}: the demo page answers GET and HEAD`, { allow: DEMO_METHODS.join(", ") });
      return true;
    }
    if (urlPath === "/demo") {
      const query = (req.url ?? "").slice(urlPath.length);
      res.writeHead(308, { location: `/demo/${query.startsWith("?") ? query : ""}`, "cache-control": "no-store" });
      res.end();
      return true;
    }
    const name = urlPath === "/demo/" ? "index.html" : urlPath.slice("/demo/".length);
    const type = CONTENT_TYPES[path.extname(name)];
    if (!FILE_NAME.test(name) || !type) {
      refuse(res, 404, "not_found", "no such file in the demo page");
      return true;
    }
    readFile(path.join(dir, name)).then(
      (body) => sendBody(req, res, type, body, SECURITY_HEADERS),
      (err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") return refuse(res, 500, "internal", "the demo page could not be read");
        if (name === "index.html") return refuse(res, 404, "demo_not_built", "the demo page is not built: run `npm run build:demo` (npm start does)");
        refuse(res, 404, "not_found", "no such file in the demo page");
      },
    );
    return true;
  };
}
