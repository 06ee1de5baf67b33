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
    for (const tool of ["dirname", "mkdir", "mktemp", "rm", "wc", "sleep", "tail", "cat"]) await symlink(`/usr/bin/${tool}`, path.join(toolsPath, tool)).catch(() => symlink(`/bin/${tool}`, path.join(toolsPath, tool)));
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

  it("builds with Go, printing a heartbeat and the count of packages built", async () => {
    // A stand-in `go`: `install -v` lists packages on stderr, takes a moment, and leaves the binary in GOBIN.
    const fakeGo = [
      "#!/bin/bash",
      'case "$1" in',
      '  version) echo "go version go1.99 test/amd64" ;;',
      '  env) echo "proxy-under-test" ;;',
      '  install) printf "pkg/a\\npkg/b\\npkg/c\\n" >&2; sleep 2; printf "#!/bin/sh\\necho temporal version test\\n" >"$GOBIN/temporal"; chmod +x "$GOBIN/temporal" ;;',
      "esac",
    ].join("\n");
    await writeFile(path.join(toolsPath, "go"), `${fakeGo}\n`);
    await chmod(path.join(toolsPath, "go"), 0o755);
    await symlink("/bin/chmod", path.join(toolsPath, "chmod")).catch(() => undefined);
    try {
      const result = run();
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      expect(result.stdout).toContain("with go version go1.99 test/amd64");
      expect(result.stdout).toMatch(/built 3 packages in \d+ s/);
      expect(result.stdout).toContain("temporal CLI installed:");
    } finally {
      await rm(path.join(toolsPath, "go"), { force: true });
      await rm(path.join(fakeRepo, ".tools"), { recursive: true, force: true });
    }
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
