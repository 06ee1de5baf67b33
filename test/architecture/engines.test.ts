import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * package.json's `engines.node` is the Node range Sigil promises to run on, and CI runs it on that range's
 * floor. Every installed package must accept the whole of it: a dependency that wants a newer Node than we
 * declare is a promise we cannot keep (npm only warns, EBADENGINE, and the first failure comes at run time).
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const declared = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;

/** Every package.json under node_modules, nested ones included (npm puts a conflicting version there). */
function installedPackages(dir: string, found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith("@")) {
      installedPackages(full, found);
      continue;
    }
    if (existsSync(path.join(full, "package.json"))) found.push(full);
    installedPackages(path.join(full, "node_modules"), found);
  }
  return found;
}

describe("the Node version", () => {
  it("package.json declares a valid range that the Node running the tests satisfies", () => {
    expect(semver.validRange(declared), declared).toBeTruthy();
    expect(semver.satisfies(process.version, declared), `${process.version} outside ${declared}`).toBe(true);
  });

  it("every installed dependency accepts the whole declared range", () => {
    const refusing: string[] = [];
    for (const dir of installedPackages(path.join(repoRoot, "node_modules"))) {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string; engines?: { node?: unknown } };
      const wanted = pkg.engines?.node;
      if (typeof wanted !== "string" || !pkg.name) continue; // no engines, or a nested package.json of a package's own files
      const range = semver.validRange(wanted);
      if (!range || !semver.subset(declared, range)) refusing.push(`${path.relative(repoRoot, dir)} (${pkg.name}@${pkg.version}) wants node ${wanted}`);
    }
    expect(refusing, `package.json declares node ${declared}`).toEqual([]);
  });
});
