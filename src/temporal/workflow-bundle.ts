/**
 * The worker's workflow bundle, cached on disk: bundling the workflows (webpack) took most of a start's
 * time, and its input only changes with the code. The cache file is named by a hash of every TypeScript
 * source under src/ (what the bundle may import is a subset of it), the Temporal workflow package's version
 * and Node's, so any change of code or dependency builds a new bundle; an unreadable or unwritable cache
 * only means building, never failing.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime, bundleWorkflowCode } from "@temporalio/worker";
import { writeFileAtomic } from "../infra/atomic-file.js";
import { tracedWorkflowModules } from "./tracing.js";

const srcDir = fileURLToPath(new URL("..", import.meta.url));
const workflowsPath = path.join(srcDir, "workflows", "index.ts");

async function sourcesHash(): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(srcDir, { recursive: true })).filter((f) => f.endsWith(".ts")).sort();
  for (const f of files) hash.update(f).update("\0").update(await readFile(path.join(srcDir, f))).update("\0");
  const require = createRequire(import.meta.url);
  const { version } = require("@temporalio/workflow/package.json") as { version: string };
  hash.update(`@temporalio/workflow@${version} node@${process.version}`);
  return hash.digest("hex").slice(0, 32);
}

/**
 * A bundle for Worker.create's `workflowBundle`: read from `<cacheDir>`, or built and written there. A traced
 * bundle (a process that exports traces) also holds the OpenTelemetry workflow interceptors
 * (./tracing.ts); it is a file of its own, so that an untraced worker runs exactly the plain bundle.
 */
export async function cachedWorkflowBundle(cacheDir: string, log: (msg: string) => void = () => {}, opts: { traced?: boolean } = {}): Promise<{ code: string }> {
  const prefix = opts.traced ? "workflow-bundle-traced-" : "workflow-bundle-";
  const name = `${prefix}${await sourcesHash()}.js`;
  const file = path.join(cacheDir, name);
  const cached = await readFile(file, "utf8").catch(() => undefined);
  if (cached) return { code: cached };
  const started = Date.now();
  const workflowInterceptorModules = opts.traced ? tracedWorkflowModules() : undefined;
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: Runtime.instance().logger });
  log(`workflow bundle built in ${Date.now() - started} ms`);
  try {
    await mkdir(cacheDir, { recursive: true });
    // Whole or not at all: a process starting meanwhile never reads half a bundle.
    await writeFileAtomic(file, code);
    const sameKind = (f: string) => (opts.traced ? f.startsWith(prefix) : /^workflow-bundle-[0-9a-f]+\.js$/.test(f));
    for (const old of await readdir(cacheDir)) if (sameKind(old) && old !== name) await rm(path.join(cacheDir, old), { force: true });
  } catch (err) {
    log(`workflow bundle not cached: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { code };
}
