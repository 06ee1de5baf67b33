import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../src/infra/temporal-cli.js";

// PATH holds just the tools the script needs plus stand-ins, so what this machine has installed does not
// decide the outcome: the script's decisions are what is tested, not Debian's package.
describe("scripts/install-redis.sh", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "sigil-install-redis-"));
    // The script installs only as root: a stand-in `id` says root, whoever runs the tests.
    await writeFile(path.join(dir, "id"), "#!/bin/bash\necho 0\n");
    await chmod(path.join(dir, "id"), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = () =>
    spawnSync("/bin/bash", [path.join(repoRoot, "scripts", "install-redis.sh")], {
      encoding: "utf8",
      env: { PATH: dir, HOME: dir },
      timeout: 20_000,
    });
  const stub = async (name: string, body: string) => {
    await writeFile(path.join(dir, name), `#!/bin/bash\n${body}\n`);
    await chmod(path.join(dir, name), 0o755);
  };

  it("says what to do when neither redis-server nor apt-get is there", () => {
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/apt-get is not available/);
    expect(result.stderr).toMatch(/REDIS_URL/);
  });

  it("installs Debian's redis-server package as root, then finds it", async () => {
    // A stand-in apt-get that records its arguments and "installs" redis-server on PATH.
    await stub("apt-get", `echo "$@" >>"${dir}/apt.log"; if [[ "$1" == install ]]; then printf '#!/bin/sh\\n' >"${dir}/redis-server"; /bin/chmod +x "${dir}/redis-server"; fi`);
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`redis-server installed: ${path.join(dir, "redis-server")}`);
    const calls = spawnSync("/bin/cat", [path.join(dir, "apt.log")], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(calls).toEqual(["update -q", "install -y -q --no-install-recommends redis-server"]);
  });

  it("does nothing when redis-server is already there", async () => {
    await stub("redis-server", "exit 0");
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("already present");
  });
});
