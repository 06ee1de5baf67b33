/**
 * `npm run build:demo`: builds the demo page (demo/: plain TypeScript, one HTML page and its CSS) into
 * demo/dist, which the server serves at /demo (src/server/demo.ts). `npm start` runs it first, so a fresh
 * clone's `npm ci && npm start` has the page and an edited page shows after a restart; the image builds it in
 * its build stage (Dockerfile). One esbuild bundle for the browser: the device's share of the threshold
 * protocol is the service's own code (src/crypto/threshold), with the native libsecp256k1 binding swapped for
 * its absence (noble then computes the same), and a Node built-in reaching the bundle fails the build.
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
export const DEMO_SOURCE = path.join(root, "demo");
export const DEMO_DIST = path.join(DEMO_SOURCE, "dist");

/** src/crypto/libsecp256k1.ts loads a native module (createRequire): in a browser there is none. */
const noNativeSecp256k1: Plugin = {
  name: "no-native-secp256k1",
  setup(b) {
    b.onResolve({ filter: /\/libsecp256k1\.js$/ }, () => ({ path: "libsecp256k1", namespace: "browser-shim" }));
    b.onLoad({ filter: /.*/, namespace: "browser-shim" }, () => ({ contents: "export const libsecp256k1 = null;", loader: "js" }));
  },
};

/** A Node built-in in the bundle would break in the browser: the build fails naming who imported it. */
const noNodeBuiltins: Plugin = {
  name: "no-node-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ errors: [{ text: `${args.path} (imported by ${path.relative(root, args.importer)}) has no browser version` }] }));
  },
};

/** Builds the page into `outDir`; answers the bundle's size in bytes. */
export async function buildDemo(outDir = DEMO_DIST): Promise<number> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: [path.join(DEMO_SOURCE, "src/main.ts")],
    outfile: path.join(outDir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome111", "firefox111", "safari16.4"],
    minify: true,
    sourcemap: "linked",
    legalComments: "linked",
    metafile: true,
    logLevel: "silent",
    plugins: [noNativeSecp256k1, noNodeBuiltins],
  });
  for (const file of ["index.html", "style.css"]) copyFileSync(path.join(DEMO_SOURCE, file), path.join(outDir, file));
  return result.metafile.outputs[path.relative(process.cwd(), path.join(outDir, "app.js"))]?.bytes ?? 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  try {
    const bytes = await buildDemo();
    console.log(`[demo] built ${path.relative(process.cwd(), DEMO_DIST)} (${Math.round(bytes / 1024)} kB) in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    console.error(`[demo] build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
