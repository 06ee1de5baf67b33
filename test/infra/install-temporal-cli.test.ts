import { spawnSync } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../src/infra/temporal-cli.js";

// The script resolves the repo from its own location, so a copy in a temp "repo" acts on that copy only.
// PATH holds just the tools the script needs, so Go is absent whatever this machine has.
describe("scripts/install-temporal-cli.sh", () => {
  let fakeRepo: string;
  let toolsPath: string;
  beforeAll(async () => {
    fakeRepo = await mkdtemp(path.join(tmpdir(), "sigil-install-cli-"));
    await mkdir(path.join(fakeRepo, "scripts"));
    await copyFile(path.join(repoRoot, "scripts", "install-temporal-cli.sh"), path.join(fakeRepo, "scripts", "install-temporal-cli.sh"));
    toolsPath = path.join(fakeRepo, "bin");
    await mkdir(toolsPath);
    for (const tool of ["dirname", "mkdir"]) await symlink(`/usr/bin/${tool}`, path.join(toolsPath, tool)).catch(() => symlink(`/bin/${tool}`, path.join(toolsPath, tool)));
  });
  afterAll(async () => {
    await rm(fakeRepo, { recursive: true, force: true });
  });

  const run = () =>
    spawnSync("/bin/bash", [path.join(fakeRepo, "scripts", "install-temporal-cli.sh")], {
      encoding: "utf8",
      env: { PATH: toolsPath, HOME: fakeRepo },
      timeout: 20_000,
    });

  it("fails clearly when Go is missing", () => {
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/Go is not installed/);
  });

  it("does nothing when the CLI is already there", async () => {
    const bin = path.join(fakeRepo, ".tools", "bin");
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, "temporal"), "#!/bin/sh\necho fake\n");
    await chmod(path.join(bin, "temporal"), 0o755);
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`already present: ${path.join(bin, "temporal")}`);
  });
});
