import { spawn } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../src/infra/ports.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "../infra/fixtures/runtime-process.js";

/**
 * The README is a walk-through a new user runs top to bottom: every ```sh / ```bash block, in order, in one
 * shell (variables carry from block to block), against a fresh `npm start` (embedded Postgres and Temporal
 * dev server on a new data dir). A block that must not run says so in the README, visibly, on the line
 * before its fence: `<!-- walkthrough: skip (why) -->`.
 *
 * What the test changes, and only this: the server, the dev OIDC provider (9090, OIDC_PORT), the stand-in
 * social hub (18914) and the local chains (8545 EVM_PORT, 8899 SOLANA_PORT) listen on free ports, so those ports in the blocks become them (another run or the
 * developer's own `npm start` may hold the README's); the shell's `SIGIL_DATA_DIR` is the fresh data dir (what
 * `./data` is for a user); `TMPDIR` is a scratch dir, so `mktemp` lands in it. Every curl request that answers 400 or more
 * must be one the README shows failing (`"error"` or the status in its comment; a 429 or 5xx only by its
 * status), so a block that silently gets `domain_not_allowed`, a revoked JWT or a rate limit fails the test.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const README = path.join(repoRoot, "README.md");
const SKIP = /^<!--\s*walkthrough:\s*skip\s*\((.+)\)\s*-->$/;
/** The README's ports for what its blocks start themselves: the dev OIDC provider and the stand-in social hub. */
const README_PORTS = { api: "localhost:8080", oidc: "127.0.0.1:9090", hub: "18914", evm: "127.0.0.1:8545", solana: "127.0.0.1:8899" };
/** The whole walk-through takes about a minute; a block that waits for something that never comes is stopped. */
const WALK_TIMEOUT_MS = 240_000;

interface Block {
  index: number;
  heading: string;
  /** 1-based README line of the block's first line (after the fence). */
  line: number;
  lines: string[];
  skip?: string;
}

/** The README's shell blocks in order, with the heading they sit under and their skip marker. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let heading = "(top)";
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const fence = /^```(\S*)\s*$/.exec(text);
    if (!fence) {
      if (/^#{1,6} /.test(text)) heading = text.replace(/^#+ /, "");
      continue;
    }
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (fence[1] === "sh" || fence[1] === "bash") {
      let prev = i - 1;
      while (prev >= 0 && lines[prev]!.trim() === "") prev--;
      const marker = prev >= 0 ? SKIP.exec(lines[prev]!.trim()) : null;
      blocks.push({ index: blocks.length + 1, heading, line: start + 1, lines: lines.slice(start, end), skip: marker?.[1] });
    }
    i = end;
  }
  return blocks;
}

/**
 * The README lines a request at `line` (1-based; bash reports a multi-line command's last line) belongs to:
 * its whole command (continuation lines) and the comment lines right after it, where the README shows the
 * answer.
 */
function statementAround(lines: string[], line: number): string {
  let first = line - 1;
  while (first > 0 && /[\\|(]\s*$/.test(lines[first - 1]!)) first--;
  let last = line - 1;
  while (last + 1 < lines.length && /[\\|]\s*$/.test(lines[last]!)) last++;
  while (last + 1 < lines.length && /^\s*#/.test(lines[last + 1]!)) last++;
  return lines.slice(first, last + 1).join("\n");
}

interface Script {
  text: string;
  /** README line of each script line (1-based both; 0: the test's own preamble). */
  readmeLine: number[];
}

interface Ports {
  api: number;
  oidc: number;
  hub: number;
  evm: number;
  solana: number;
}

function buildScript(blocks: Block[], ports: Ports): Script {
  const out: string[] = [];
  const readmeLine: number[] = [0];
  const own = (s: string) => {
    out.push(s);
    readmeLine.push(0);
  };
  own("set -euo pipefail");
  // Every curl reports its status and the script line that ran it on stderr, after the body; a command's own
  // -w comes later on the command line and wins (those commands print their status themselves).
  own(`curl() { command curl -w "%{stderr}\\n@@http %{http_code} \${BASH_LINENO[0]}\\n" "$@"; }`);
  own(`trap 'echo "@@failed at script line $LINENO: $BASH_COMMAND" >&2' ERR`);
  for (const b of blocks) {
    if (b.skip) continue;
    own(`printf '\\n@@block ${b.index} %s\\n' "$EPOCHREALTIME"`);
    b.lines.forEach((l, k) => {
      out.push(
        l
          .replaceAll(README_PORTS.api, `localhost:${ports.api}`)
          .replaceAll(README_PORTS.oidc, `127.0.0.1:${ports.oidc}`)
          .replaceAll(README_PORTS.hub, String(ports.hub))
          .replaceAll(README_PORTS.evm, `127.0.0.1:${ports.evm}`)
          .replaceAll(README_PORTS.solana, `127.0.0.1:${ports.solana}`),
      );
      readmeLine.push(b.line + k);
    });
  }
  own(`printf '\\n@@done %s\\n' "$EPOCHREALTIME"`);
  return { text: out.join("\n") + "\n", readmeLine };
}

interface Failure {
  block?: Block;
  reason: string;
  output: string;
}

/** How long each block ran, in seconds, from the markers' timestamps: "block 18 (Threshold wallets) 21.3 s". */
function blockTimes(log: string, blocks: Block[]): string[] {
  const marks = [...log.matchAll(/^@@(?:block (\d+)|done) ([\d.]+)$/gm)].map((m) => ({ index: m[1] ? Number(m[1]) : 0, at: Number(m[2]) }));
  return marks.slice(0, -1).map((m, k) => {
    const b = blocks.find((x) => x.index === m.index)!;
    return `block ${m.index} (${b.heading}) ${(marks[k + 1]!.at - m.at).toFixed(1)} s`;
  });
}

/** Reads the session's output: which block failed (if any), and why. */
function judge(log: string, exitCode: number | null, blocks: Block[], script: Script, readme: string[]): Failure | undefined {
  const byIndex = new Map(blocks.map((b) => [b.index, b]));
  let current: Block | undefined;
  let shown: string[] = [];
  for (const line of log.split("\n")) {
    const started = /^@@block (\d+) /.exec(line);
    if (started) {
      current = byIndex.get(Number(started[1]));
      shown = [];
      continue;
    }
    const http = /^@@http (\d+) (\d+)$/.exec(line);
    if (http) {
      const status = Number(http[1]);
      const at = script.readmeLine[Number(http[2])] ?? 0;
      // 000 (no connection) is curl's own failure: its exit status stops the shell, unless a readiness loop expects it.
      if (status >= 400) {
        const statement = at ? statementAround(readme, at) : "";
        // A shown error body covers the 4xx it shows; a rate limit or a server error only where the README names it.
        const expected = (status === 429 || status >= 500 ? false : statement.includes('"error"')) || new RegExp(`\\b${status}\\b`).test(statement);
        if (!expected) {
          return {
            block: current,
            reason: `README line ${at}: the request answered ${status}, which the README does not show as an error`,
            output: shown.join("\n"),
          };
        }
      }
      continue;
    }
    if (line.startsWith("@@done ")) return exitCode === 0 ? undefined : { reason: `the shell exited ${exitCode} after the last block`, output: shown.join("\n") };
    shown.push(line);
  }
  const failed = /@@failed at script line (\d+): (.*)/.exec(log);
  const at = failed ? script.readmeLine[Number(failed[1])] : undefined;
  return {
    block: current,
    reason: failed
      ? `README line ${at}: \`${failed[2]}\` failed (exit ${exitCode})`
      : exitCode === null
        ? `still running after ${WALK_TIMEOUT_MS / 1000} s: stopped`
        : `the shell exited ${exitCode}`,
    output: shown.join("\n"),
  };
}

describe("the README walk-through", () => {
  let work: string;
  let runtime: RuntimeProcess | undefined;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), "sigil-readme-"));
    // As root, the embedded Postgres runs as the postgres user, who must reach the data dir inside.
    chmodSync(work, 0o755);
  });
  afterAll(async () => {
    if (runtime && runtime.child.exitCode === null) {
      runtime.child.kill("SIGTERM");
      await runtime.exited;
    }
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it("marks every skipped block with a reason, and skips few", () => {
    const blocks = shellBlocks(readFileSync(README, "utf8"));
    expect(blocks.length).toBeGreaterThan(10);
    const skipped = blocks.filter((b) => b.skip);
    for (const b of skipped) expect(b.skip!.trim().length, `block ${b.index} (${b.heading})`).toBeGreaterThan(10);
    expect(skipped.length).toBeLessThanOrEqual(2);
  });

  it("runs every shell block in order against a fresh npm start", async () => {
    const readme = readFileSync(README, "utf8");
    const blocks = shellBlocks(readme);
    const dataDir = path.join(work, "data");
    const scratch = path.join(work, "tmp");
    mkdirSync(scratch);
    const ports = await freeRuntimePorts();
    const own = { api: ports.api, oidc: await findFreePort(), hub: await findFreePort(), evm: await findFreePort(), solana: await findFreePort() };
    const started = Date.now();
    // The decentralized-social block says to run Sigil pointed at its stand-in hub.
    runtime = startRuntimeProcess(dataDir, ports, { env: { SIGIL_SOCIAL_HUB_URL: `http://127.0.0.1:${own.hub}`, LOG_LEVEL: "warn" } });
    await waitHealthy(runtime, 180_000);
    const healthyMs = Date.now() - started;

    const script = buildScript(blocks, own);
    const scriptFile = path.join(work, "walkthrough.sh");
    writeFileSync(scriptFile, script.text);
    const logFile = path.join(work, "walkthrough.log");
    const fd = openSync(logFile, "w");
    const rootBefore = new Set(readdirSync(repoRoot));

    // A user's shell: none of the servers' settings the test run itself may carry.
    const env: NodeJS.ProcessEnv = { ...process.env, SIGIL_DATA_DIR: dataDir, TMPDIR: scratch, OIDC_PORT: String(own.oidc), EVM_PORT: String(own.evm), SOLANA_PORT: String(own.solana) };
    for (const name of ["DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS", "TEMPORAL_TASK_QUEUE", "PORT", "PUBLIC_URL", "SIGIL_URL", "SIGIL_API", "SIGIL_SEALING_KEYS"]) {
      delete env[name];
    }
    // Its own process group: background jobs the README starts (dev:oidc, dev:chains) are stopped with the session.
    const shell = spawn("bash", ["--noprofile", "--norc", scriptFile], { cwd: repoRoot, env, stdio: ["ignore", fd, fd], detached: true });
    const stopAll = () => {
      try {
        process.kill(-shell.pid!, "SIGTERM");
      } catch {
        // nothing left running
      }
    };
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      stopAll();
    }, WALK_TIMEOUT_MS);
    const exitCode = await new Promise<number | null>((resolve) => shell.once("exit", (code) => resolve(code)));
    clearTimeout(deadline);
    closeSync(fd);
    stopAll();
    // SIGIL_WALKTHROUGH_LOG=<file>: the session's whole output, to read after a run.
    if (process.env.SIGIL_WALKTHROUGH_LOG) copyFileSync(logFile, process.env.SIGIL_WALKTHROUGH_LOG);
    const walkMs = Date.now() - started - healthyMs;
    const log = readFileSync(logFile, "utf8");
    console.log(
      `README walk-through: healthy in ${healthyMs} ms, ${blocks.filter((b) => !b.skip).length} blocks in ${walkMs} ms\n  ${blockTimes(log, blocks).join("\n  ")}`,
    );

    const failure = judge(log, timedOut ? null : exitCode, blocks, script, readme.split("\n"));
    if (failure) {
      const where = failure.block ? `block ${failure.block.index} (under "${failure.block.heading}", README line ${failure.block.line})` : "the walk-through";
      throw new Error(`${where} failed: ${failure.reason}\n--- its output ---\n${failure.output.slice(-4000)}`);
    }
    const added = readdirSync(repoRoot).filter((name) => !rootBefore.has(name));
    expect(added, "files the walk-through wrote into the repository folder").toEqual([]);
  }, 600_000);
});
