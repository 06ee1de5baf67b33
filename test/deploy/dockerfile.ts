import { readFileSync } from "node:fs";
import path from "node:path";

/** The Dockerfile read as instructions (continuation lines joined, comments dropped), enough for the tests. */
export interface Dockerfile {
  instructions: { name: string; args: string; stage: string | undefined }[];
  /** ARG defaults before the first FROM. */
  args: Record<string, string>;
  /** ENV of the last stage (the image that runs). */
  env: Record<string, string>;
  stage(name: string): { name: string; args: string }[];
}

export function readDockerfile(file = path.resolve(import.meta.dirname, "../../Dockerfile")): Dockerfile {
  const joined = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ");
  const instructions: Dockerfile["instructions"] = [];
  let stage: string | undefined;
  for (const line of joined.split("\n")) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, name, args] = m as unknown as [string, string, string];
    if (name === "FROM") stage = /\sAS\s+(\S+)/i.exec(args)?.[1];
    instructions.push({ name, args: args.trim().replace(/\s+/g, " "), stage });
  }
  const args = Object.fromEntries(
    instructions.filter((i) => i.name === "ARG" && i.stage === undefined).map((i) => i.args.split("=") as [string, string]),
  );
  const last = instructions.filter((i) => i.name === "FROM").at(-1)?.stage;
  const env: Record<string, string> = {};
  for (const i of instructions.filter((x) => x.name === "ENV" && x.stage === last)) {
    for (const [, k, v] of i.args.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  }
  return { instructions, args, env, stage: (name) => instructions.filter((i) => i.stage === name) };
}

/** ENTRYPOINT and CMD of the image (exec form). */
export function dockerfileCommand(d: Dockerfile): { entrypoint: string[]; cmd: string[] } {
  const last = (name: string) => JSON.parse(d.instructions.filter((i) => i.name === name).at(-1)!.args) as string[];
  return { entrypoint: last("ENTRYPOINT"), cmd: last("CMD") };
}
