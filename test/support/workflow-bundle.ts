import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { workflowBundleCacheDir } from "../../src/temporal/worker.js";
import { cachedWorkflowBundle } from "../../src/temporal/workflow-bundle.js";

/**
 * The workflow bundle every test worker runs, from one cache shared by all test files and runs
 * (node_modules/.cache, where tools keep their caches; `npm ci` starts it afresh). Bundling (webpack) takes
 * seconds: the integration lane's global setup builds it before any file starts, so each test app and replay
 * reads it. The cache is the runtime's own (src/temporal/workflow-bundle.ts): named by a hash of the sources,
 * so a changed workflow is bundled again, never served stale.
 */
const cacheDir = path.resolve(import.meta.dirname, "../../node_modules/.cache/sigil");

/** Said on stderr, so that a run's output shows how often the bundle was built (once, or none when cached). */
const say = (msg: string) => process.stderr.write(`[test workflow bundle] ${msg}\n`);

let bundle: Promise<{ code: string }> | undefined;

/** The bundle, read (or built) once per test file's process: a file may start several apps. */
export function testWorkflowBundle(): Promise<{ code: string }> {
  bundle ??= cachedWorkflowBundle(cacheDir, say);
  return bundle;
}

/**
 * Puts the cached bundle into a data dir's cache before a runtime process starts on it (`sigil start` reads
 * <dataDir>/cache), so that a test of a whole process does not bundle again. Synchronous, before the spawn;
 * with nothing cached yet (a file run outside the integration lane) the process builds it, as in production.
 */
export function seedWorkflowBundle(dataDir: string): void {
  const bundles = existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => /^workflow-bundle-[0-9a-f]+\.js$/.test(f)) : [];
  if (!bundles.length) return;
  const target = workflowBundleCacheDir(dataDir);
  mkdirSync(target, { recursive: true });
  for (const f of bundles) copyFileSync(path.join(cacheDir, f), path.join(target, f));
}
