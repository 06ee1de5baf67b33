import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configurationDocPath, renderConfigurationDoc } from "../../scripts/gen-config-docs.js";
import { SETTING_GROUPS } from "../../src/config-reference.js";
import { loadConfig } from "../../src/config.js";
import { devRoleEnv } from "../../src/dev-defaults.js";
import { missingProductionSettings } from "../../src/production-roles.js";

const src = fileURLToPath(new URL("../../src", import.meta.url));
const documented = new Set(SETTING_GROUPS.flatMap((g) => g.settings.map((s) => s.name)));
/** Variables of the system, not settings of Sigil: the Temporal CLI is looked up on PATH. */
const system = new Set(["PATH"]);
const key = (n: number) => `k${n}:${Buffer.alloc(32, n).toString("base64")}`;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return file === path.join(src, "gen") ? [] : sourceFiles(file);
    return file.endsWith(".ts") ? [file] : [];
  });
}

/**
 * The variables a source text names where it reads the environment: `env.X` / `process.env.X`,
 * `env["X"]`, and the readers of src/config-values.ts given a variable's name (`int("X", ...)`,
 * `sealingKeys(env, dir, "X")`).
 */
export function envReadsIn(text: string): string[] {
  const names = new Set<string>();
  const patterns = [
    /\benv(?:\?\.|\.)([A-Z][A-Z0-9_]*)\b/g,
    /\benv\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g,
    /\b(?:int|bool|httpUrl|rpcUrlsById|durations|tcpPort|atLeastOne|url)\(\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
    /\bsealingKeys\([^()"'`]*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
    /\bvendorAccount\(\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
  ];
  for (const re of patterns)
    for (const m of text.matchAll(re)) {
      if (re.source.startsWith("\\bvendorAccount")) for (const suffix of ["_URL", "_KEY_ID", "_SECRET"]) names.add(`${m[1]}${suffix}`);
      else names.add(m[1]!);
    }
  return [...names];
}

/** An environment that records every variable looked up in it. */
function recording(values: Record<string, string>): { env: NodeJS.ProcessEnv; read: Set<string> } {
  const read = new Set<string>();
  const env = new Proxy(values, {
    get: (target, name) => (typeof name === "string" && read.add(name), target[name as string]),
    has: (target, name) => (typeof name === "string" && read.add(name), name in target),
  });
  return { env, read };
}

const keys = { SIGIL_SEALING_KEYS: key(1), SIGIL_BACKUP_SEALING_KEYS: key(2) };

/** Every variable loadConfig, the dev role and the production roles' check look up, with every optional part on. */
function variablesReadAtStart(): Set<string> {
  const { env, read } = recording({
    ...keys,
    SIGIL_PRICE_SOURCE_URL: "https://prices.example",
    SIGIL_PRICE_SOURCE_KEY_ID: "k",
    SIGIL_PRICE_SOURCE_SECRET: "s",
    SIGIL_RAMP_PROVIDER_URL: "https://ramps.example",
    SIGIL_RAMP_PROVIDER_KEY_ID: "k",
    SIGIL_RAMP_PROVIDER_SECRET: "s",
  });
  loadConfig(env);
  missingProductionSettings(env);
  const dev = recording({});
  devRoleEnv(dev.env);
  return new Set([...read, ...dev.read]);
}

describe("the configuration reference (docs/configuration.md)", () => {
  it("is what `npm run docs:config` generates now", () => {
    expect(existsSync(configurationDocPath), "docs/configuration.md is missing: run npm run docs:config").toBe(true);
    expect(readFileSync(configurationDocPath, "utf8"), "docs/configuration.md is stale: run npm run docs:config").toBe(renderConfigurationDoc());
  });

  it("names every environment variable src/ reads", () => {
    const missing: string[] = [];
    for (const file of sourceFiles(src))
      for (const name of envReadsIn(readFileSync(file, "utf8")))
        if (!documented.has(name) && !system.has(name)) missing.push(`${name} (${path.relative(src, file)})`);
    for (const name of variablesReadAtStart()) if (!documented.has(name) && !system.has(name)) missing.push(`${name} (read by loadConfig)`);
    expect(missing, "add these to src/config-reference.ts, then npm run docs:config").toEqual([]);
  });

  it("names only variables the service reads", () => {
    const read = variablesReadAtStart();
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });

  it("gives the defaults loadConfig applies", () => {
    const config = loadConfig(keys);
    const wrong = SETTING_GROUPS.flatMap((g) => g.settings)
      .filter((s) => s.of && s.default !== undefined)
      .filter((s) => JSON.stringify(s.of!(config)) !== JSON.stringify(s.default))
      .map((s) => `${s.name}: documented ${JSON.stringify(s.default)}, applied ${JSON.stringify(s.of!(config))}`);
    expect(wrong).toEqual([]);
  });

  it("finds the reads it looks for (the scan's own check)", () => {
    const text = 'const a = process.env.FOO_A; env["FOO_B"]; int("FOO_C", 1, env); sealingKeys(env, dir, "FOO_D", "f"); vendorAccount("FOO_E", env);';
    expect(envReadsIn(text).sort()).toEqual(["FOO_A", "FOO_B", "FOO_C", "FOO_D", "FOO_E_KEY_ID", "FOO_E_SECRET", "FOO_E_URL"]);
  });
});
