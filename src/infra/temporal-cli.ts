import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this file lives in <repo>/src/infra (or <repo>/dist/infra once compiled). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where `npm run tools:temporal` (scripts/install-temporal-cli.sh) puts the CLI it builds. */
export const bundledTemporalCliPath = path.join(repoRoot, ".tools", "bin", "temporal");

export const installTemporalCliHint =
  "install it with `npm run tools:temporal` (builds it with Go into .tools/bin), put `temporal` on PATH, " +
  "set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to a running Temporal server";

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, pathVar = process.env.PATH ?? ""): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds the Temporal CLI: `explicit` (usually config.temporalCliPath) or TEMPORAL_CLI_PATH, then PATH, then
 * <repo>/.tools/bin/temporal. An explicit path that is not executable is an error rather than a silent
 * fallback, since the caller asked for that binary.
 */
export function findTemporalCli(explicit?: string): string | undefined {
  const wanted = explicit ?? process.env.TEMPORAL_CLI_PATH;
  if (wanted) {
    if (!isExecutable(wanted)) throw new Error(`Temporal CLI ${wanted} (TEMPORAL_CLI_PATH) is not an executable file`);
    return wanted;
  }
  return onPath("temporal") ?? (isExecutable(bundledTemporalCliPath) ? bundledTemporalCliPath : undefined);
}

export function isGoAvailable(): boolean {
  return onPath("go") !== undefined;
}

/**
 * Runs scripts/install-temporal-cli.sh (a `go install` into .tools/bin), streaming its progress to `log`,
 * and returns the path of the built CLI.
 */
export async function installTemporalCli(log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  const script = path.join(repoRoot, "scripts", "install-temporal-cli.sh");
  log(`Temporal CLI not found; building it with Go (${script}), this takes a few minutes the first time`);
  const output: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn("bash", [script], { stdio: ["ignore", "pipe", "pipe"] });
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split(/\r?\n/)) {
        if (!line.trim()) continue;
        output.push(line);
        log(line);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    child.once("close", (c) => resolve(c ?? 1));
  });
  if (code !== 0 || !isExecutable(bundledTemporalCliPath)) {
    throw new Error(`building the Temporal CLI failed (exit ${code}):\n${output.slice(-20).join("\n")}\n${installTemporalCliHint}`);
  }
  return bundledTemporalCliPath;
}
