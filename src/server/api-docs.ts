import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sendBody, type Req, type Res } from "./replies.js";

/** The document `npm run gen` writes (scripts/protoc-gen-openapi.ts). */
const DEFAULT_DOCUMENT = fileURLToPath(new URL("../gen/openapi.json", import.meta.url));
/** Redoc's browser bundle, one self-contained script (styles and search worker included), served from the installed package. */
const RENDERER_BUNDLE = path.join(path.dirname(fileURLToPath(import.meta.resolve("redoc"))), "redoc.standalone.js");

export const API_DOCS_METHODS = ["GET", "HEAD"] as const;
export const OPENAPI_PATH = "/openapi.json";
const DOCS_PATH = "/docs";
const ASSETS = "/docs/assets/";

/** Whether `path` is one of the published contract's: the document, the reference page and its scripts. */
export const isApiDocsPath = (p: string) => p === OPENAPI_PATH || p === DOCS_PATH || p.startsWith(DOCS_PATH + "/");

/**
 * The reference page may load only its own scripts and read only this origin (the document): no font, CDN
 * or image host is ever asked, so the page works offline and tells no one who reads it (the renderer's
 * footer logo, an image on its CDN, is refused here). Redoc sets styles inline and runs its search index in
 * a worker made from a blob, hence those two allowances.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sigil API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${ASSETS}redoc.standalone.js"></script>
    <script src="${ASSETS}reference.js"></script>
  </body>
</html>
`;

/**
 * Redoc's options (https://redocly.com/docs/redoc/config): the required properties first, the success
 * answers open, and the operation's RPC (`x-rpc`, its name over gRPC and Connect) shown with it.
 */
const REFERENCE_SCRIPT = `Redoc.init(${JSON.stringify(OPENAPI_PATH)}, ${JSON.stringify({
  requiredPropsFirst: true,
  expandResponses: "200,201",
  showExtensions: ["x-rpc"],
  hideHostname: true,
  jsonSampleExpandLevel: 3,
})}, document.getElementById("reference"));
`;

/** A file read once and kept; a failed read is not kept, so the next request tries again (e.g. after `npm run gen`). */
function cachedRead(file: string): () => Promise<Buffer> {
  let read: Promise<Buffer> | undefined;
  return () => (read ??= readFile(file).catch((err: unknown) => ((read = undefined), Promise.reject(err))));
}

/**
 * GET /openapi.json (the document generated from the protos, read once) and GET /docs (the API reference,
 * rendered in the browser by Redoc from that document). Public, like the protos they come from. Answers
 * true when the path was one of theirs.
 */
export function createApiDocs(documentPath = DEFAULT_DOCUMENT) {
  const document = cachedRead(documentPath);
  const bundle = cachedRead(RENDERER_BUNDLE);
  const plain = (res: Res, status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers });
    res.end(text);
  };
  const fromFile = (req: Req, res: Res, read: () => Promise<Buffer>, type: string, headers: Record<string, string>, missing: string) => {
    read().then(
      (body) => sendBody(req, res, type, body, headers),
      () => plain(res, 404, missing),
    );
  };

  return function serveApiDocs(urlPath: string, req: Req, res: Res): boolean {
    if (!isApiDocsPath(urlPath)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      plain(res, 405, "this path answers GET and HEAD only\n", { allow: API_DOCS_METHODS.join(", ") });
      return true;
    }
    if (urlPath === OPENAPI_PATH) {
      fromFile(req, res, document, "application/json; charset=utf-8", { "cache-control": "no-cache" }, "the OpenAPI document is not generated: run `npm run gen`\n");
      return true;
    }
    if (urlPath === DOCS_PATH || urlPath === DOCS_PATH + "/") {
      sendBody(req, res, "text/html; charset=utf-8", PAGE, PAGE_HEADERS);
      return true;
    }
    if (urlPath === `${ASSETS}reference.js`) {
      sendBody(req, res, "text/javascript; charset=utf-8", REFERENCE_SCRIPT, PAGE_HEADERS);
      return true;
    }
    if (urlPath === `${ASSETS}redoc.standalone.js`) {
      fromFile(req, res, bundle, "text/javascript; charset=utf-8", { ...PAGE_HEADERS, "cache-control": "public, max-age=3600" }, "the reference page's renderer is not installed\n");
      return true;
    }
    plain(res, 404, "no such file in the API reference\n");
    return true;
  };
}
