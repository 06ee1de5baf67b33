import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoFiles } from "../../src/server/demo.js";

/**
 * /demo serves the demo page's build (demo/dist) and nothing else: its flat files with their types, no name
 * that reaches outside the directory, GET and HEAD only, errors in the API's error body. The page itself, in
 * a browser against the whole service, is test/e2e/demo-browser.test.ts.
 */

/** A scratch dir holding the build (dist/) and, beside it, a file no request may reach. */
let scratch: string;
let built: string;
let empty: string;
const servers: Server[] = [];

async function serve(dir: string): Promise<string> {
  const serveDemo = createDemoFiles(dir);
  const server = createServer((req, res) => {
    if (!serveDemo((req.url ?? "/").split("?")[0]!, req, res)) res.writeHead(418).end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let base: string;
let unbuilt: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "sigil-demo-"));
  built = path.join(scratch, "dist");
  empty = path.join(scratch, "empty");
  await mkdir(path.join(built, "sub"), { recursive: true });
  await mkdir(empty);
  await writeFile(path.join(scratch, "secret.js"), "outside");
  const files = [["index.html", "<!doctype html>"], ["app.js", "export {}"], ["style.css", "body{}"], ["app.js.map", "{}"], [".hidden.js", "no"], ["app.ts", "no"], ["sub/app.js", "no"]];
  for (const [name, text] of files) await writeFile(path.join(built, name!), text!);
  base = await serve(built);
  unbuilt = await serve(empty);
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await rm(scratch, { recursive: true, force: true });
});

const get = (url: string, method = "GET") => fetch(url, { method, redirect: "manual" });

/** A GET of a path exactly as written (fetch would resolve ../ and %2e%2e before sending). */
function rawGet(url: string, rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: rawPath, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("/demo", () => {
  it("redirects /demo to /demo/, keeping the query", async () => {
    const r = await get(`${base}/demo?environmentId=abc`);
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe("/demo/?environmentId=abc");
    expect((await get(`${base}/demo`)).headers.get("location")).toBe("/demo/");
  });

  it("answers the built files with their types and a policy that keeps the page to its own origin", async () => {
    const html = await get(`${base}/demo/`);
    expect(html.status).toBe(200);
    expect(await html.text()).toBe("<!doctype html>");
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(html.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await get(`${base}/demo/app.js`)).headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await get(`${base}/demo/style.css`)).headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await get(`${base}/demo/app.js.map`)).headers.get("content-type")).toBe("application/json; charset=utf-8");
    const head = await get(`${base}/demo/app.js`, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("9");
    expect(await head.text()).toBe("");
  });

  it("answers 404 for any name outside the build's flat files: traversal, dot files, other types, missing ones", async () => {
    const names = ["/demo/../secret.js", "/demo/..%2fsecret.js", "/demo/%2e%2e/secret.js", "/demo/..", "/demo/.hidden.js", "/demo/app.ts", "/demo/sub/app.js", "/demo/nope.js", "/demo/%00app.js"];
    for (const p of names) {
      const r = await rawGet(base, p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.body), p).toEqual({ error: "no such file in the demo page", code: "not_found" });
    }
  });

  it("answers GET and HEAD only (405 with Allow)", async () => {
    const r = await get(`${base}/demo/`, "POST");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD");
    expect((await r.json()).code).toBe("method_not_allowed");
  });

  it("says how to build the page when it is not built", async () => {
    const r = await get(`${unbuilt}/demo/`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: "the demo page is not built: run `npm run build:demo` (npm start does)", code: "demo_not_built" });
  });

  it("leaves every other path to the rest of the server", async () => {
    expect((await get(`${base}/demonstration`)).status).toBe(418);
    expect((await get(`${base}/api/v0/demo`)).status).toBe(418);
  });
});
