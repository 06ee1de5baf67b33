import { spawn } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../src/infra/ports.js";
import { freeRuntimePorts, startRuntimeProcess, waitHealthy, type RuntimeProcess } from "../infra/fixtures/runtime-process.js";

/**
 * The README and the guide are one walk-through a new user runs top to bottom: the README's tour, then each
 * page of docs/guide in the order of its index (docs/guide/README.md); every ```sh / ```bash block, in order,
 * in one shell (variables carry from block to block and from page to page), against a fresh `npm start`
 * (embedded Postgres and Temporal dev server on a new data dir). A block that must not run says so in its
 * page, visibly, on the line before its fence: `<!-- walkthrough: skip (why) -->`.
 *
 * What the test changes, and only this: the server, the dev OIDC provider (9090, OIDC_PORT), the stand-in
 * social hub (18914) and the local chains (8545 EVM_PORT, 8899 SOLANA_PORT) listen on free ports, so those ports in the blocks become them (another run or the
 * developer's own `npm start` may hold the pages'); the shell's `SIGIL_DATA_DIR` is the fresh data dir (what
 * `./data` is for a user); `TMPDIR` is a scratch dir, so `mktemp` lands in it; and the script runs faster than
 * anyone types, so a request over a request-rate bound (429 `rate_limited`) is repeated after its Retry-After
 * (CURL_WRAPPER; `npm run dev:device` does the same itself). Every curl request that still answers 400 or more
 * must be one its page shows failing (`"error"` or the status in its comment; a 429 or 5xx only by its
 * status), so a block that silently gets `domain_not_allowed`, a revoked JWT or a lockout fails the test.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
/** The walk-through starts here; the guide's index then names its pages in order. */
const README = "README.md";
const GUIDE = "docs/guide";
const GUIDE_INDEX = `${GUIDE}/README.md`;
const SKIP = /^<!--\s*walkthrough:\s*skip\s*\((.+)\)\s*-->$/;
/** The pages' ports: the API's, and what their blocks start themselves (the dev OIDC provider, the stand-in social hub, the local chains). */
const PAGE_PORTS = { api: "localhost:8080", oidc: "127.0.0.1:9090", hub: "18914", evm: "127.0.0.1:8545", solana: "127.0.0.1:8899" };
/**
 * The whole walk-through takes about a minute and a half on an idle machine, three under a loaded one; a block
 * that waits for something that never comes is stopped.
 */
const WALK_TIMEOUT_MS = 420_000;

/** A page of the walk-through: its path from the repository root and its lines. */
interface Doc {
  file: string;
  lines: string[];
}

interface Block {
  /** 1-based, across all pages in walk-through order. */
  index: number;
  file: string;
  heading: string;
  /** 1-based line (in `file`) of the block's first line (after the fence). */
  line: number;
  lines: string[];
  skip?: string;
}

const readDoc = (file: string): Doc => ({ file, lines: readFileSync(path.join(repoRoot, file), "utf8").split("\n") });

/** The guide's pages in the order of its index: the links of its numbered list to pages beside it. */
function guidePages(index: Doc): string[] {
  return index.lines.flatMap((l) => {
    const link = /^\d+\.\s.*?\]\(([\w.-]+\.md)\)/.exec(l);
    return link ? [`${GUIDE}/${link[1]}`] : [];
  });
}

/** The walk-through's pages in order: the README, the guide's index, then its pages. */
function walkthroughDocs(): Doc[] {
  const index = readDoc(GUIDE_INDEX);
  return [readDoc(README), index, ...guidePages(index).map(readDoc)];
}

/** The shell blocks of all pages in order, with the page, the heading they sit under and their skip marker. */
function allShellBlocks(docs: Doc[]): Block[] {
  const blocks: Block[] = [];
  for (const doc of docs) blocks.push(...shellBlocks(doc, blocks.length));
  return blocks;
}

/** A page's shell blocks in order, numbered on from `before`. */
function shellBlocks(doc: Doc, before: number): Block[] {
  const lines = doc.lines;
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
      blocks.push({ index: before + blocks.length + 1, file: doc.file, heading, line: start + 1, lines: lines.slice(start, end), skip: marker?.[1] });
    }
    i = end;
  }
  return blocks;
}

/**
 * The page's lines a request at `line` (1-based; bash reports a multi-line command's last line) belongs to:
 * its whole command (continuation lines) and the comment lines right after it, where the page shows the
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

/** Where a script line comes from: a page and its 1-based line. */
interface Source {
  file: string;
  line: number;
}

/**
 * The shell's curl. Every curl reports its status and the script line that ran it on stderr, after the body; a
 * command's own -w comes later on the command line and wins (those commands print their status themselves).
 * A 429 `rate_limited` (a request-rate bound such as the SDK's 60 requests per 10 s per address, not a
 * factor's lockout) is waited out as its Retry-After says and the request repeated, at most
 * RATE_LIMIT_RETRIES times: a user typing the commands never makes 60 SDK requests in 10 s, the script does,
 * and the refused request changed nothing. So that the wrapper sees the body, a command's `-o FILE` is pointed
 * at the wrapper's own file, copied to FILE once the answer is final. Each wait is reported (`@@paced <script line> <seconds>`) and counted in the
 * test's output.
 */
const RATE_LIMIT_RETRIES = 6;
const CURL_WRAPPER = `curl() {
  local line=\${BASH_LINENO[0]} dir rc status wait tries=0 to= args=()
  dir=$(command mktemp -d)
  local body=$dir/o
  while (($#)); do
    case $1 in
      -o | --output) to=$2; body=$dir/b; args+=(-o "$body"); shift 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  while :; do
    rc=0
    : >"$dir/h"
    command curl -D "$dir/h" -w "%{stderr}\\n@@http %{http_code} $line\\n" "\${args[@]}" >"$dir/o" 2>"$dir/e" || rc=$?
    status=$(awk '/^HTTP\\//{s=$2} END{print s}' "$dir/h")
    if [[ $status == 429 && $tries -lt ${RATE_LIMIT_RETRIES} ]] && grep -qs '"code":"rate_limited"' "$body"; then
      wait=$(awk 'tolower($1)=="retry-after:"{w=$2} END{print w+0}' "$dir/h")
      printf '@@paced %s %s\\n' "$line" "$wait" >&2
      sleep "$wait"
      tries=$((tries + 1))
      continue
    fi
    break
  done
  if [[ -n $to ]]; then cat "$body" >"$to"; fi
  cat "$dir/o"
  cat "$dir/e" >&2
  rm -rf "$dir"
  return $rc
}`;

interface Script {
  text: string;
  /** The page line of each script line (index: the 1-based script line; undefined: the test's own preamble). */
  source: (Source | undefined)[];
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
  const source: (Source | undefined)[] = [undefined];
  const own = (s: string) => {
    out.push(s);
    source.push(undefined);
  };
  own("set -euo pipefail");
  for (const line of CURL_WRAPPER.split("\n")) own(line);
  own(`trap 'echo "@@failed at script line $LINENO: $BASH_COMMAND" >&2' ERR`);
  for (const b of blocks) {
    if (b.skip) continue;
    own(`printf '\\n@@block ${b.index} %s\\n' "$EPOCHREALTIME"`);
    b.lines.forEach((l, k) => {
      out.push(
        l
          .replaceAll(PAGE_PORTS.api, `localhost:${ports.api}`)
          .replaceAll(PAGE_PORTS.oidc, `127.0.0.1:${ports.oidc}`)
          .replaceAll(PAGE_PORTS.hub, String(ports.hub))
          .replaceAll(PAGE_PORTS.evm, `127.0.0.1:${ports.evm}`)
          .replaceAll(PAGE_PORTS.solana, `127.0.0.1:${ports.solana}`),
      );
      source.push({ file: b.file, line: b.line + k });
    });
  }
  own(`printf '\\n@@done %s\\n' "$EPOCHREALTIME"`);
  return { text: out.join("\n") + "\n", source };
}

interface Failure {
  block?: Block;
  reason: string;
  output: string;
}

/** How long each block ran, in seconds, from the markers' timestamps: "block 18 (docs/guide/threshold-wallets.md: Threshold wallets) 21.3 s". */
function blockTimes(log: string, blocks: Block[]): string[] {
  const marks = [...log.matchAll(/^@@(?:block (\d+)|done) ([\d.]+)$/gm)].map((m) => ({ index: m[1] ? Number(m[1]) : 0, at: Number(m[2]) }));
  return marks.slice(0, -1).map((m, k) => {
    const b = blocks.find((x) => x.index === m.index)!;
    return `block ${m.index} (${b.file}: ${b.heading}) ${(marks[k + 1]!.at - m.at).toFixed(1)} s`;
  });
}

/** Reads the session's output: which block failed (if any), and why. */
function judge(log: string, exitCode: number | null, blocks: Block[], script: Script, docs: Doc[]): Failure | undefined {
  const linesOf = new Map(docs.map((d) => [d.file, d.lines]));
  const where = (at: Source | undefined) => (at ? `${at.file} line ${at.line}` : "the test's own preamble");
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
      const at = script.source[Number(http[2])];
      // 000 (no connection) is curl's own failure: its exit status stops the shell, unless a readiness loop expects it.
      if (status >= 400) {
        const statement = at ? statementAround(linesOf.get(at.file)!, at.line) : "";
        // A shown error body covers the 4xx it shows; a rate limit or a server error only where the page names it.
        const expected = (status === 429 || status >= 500 ? false : statement.includes('"error"')) || new RegExp(`\\b${status}\\b`).test(statement);
        if (!expected) {
          return {
            block: current,
            reason: `${where(at)}: the request answered ${status}, which the page does not show as an error`,
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
  const at = failed ? script.source[Number(failed[1])] : undefined;
  return {
    block: current,
    reason: failed
      ? `${where(at)}: \`${failed[2]}\` failed (exit ${exitCode})`
      : exitCode === null
        ? `still running after ${WALK_TIMEOUT_MS / 1000} s: stopped`
        : `the shell exited ${exitCode}`,
    output: shown.join("\n"),
  };
}

describe("the walk-through of the README and the guide", () => {
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

  it("walks every page of the guide, each once, in the order of its index", () => {
    const listed = guidePages(readDoc(GUIDE_INDEX));
    const present = readdirSync(path.join(repoRoot, GUIDE))
      .filter((f) => f.endsWith(".md") && f !== "README.md")
      .map((f) => `${GUIDE}/${f}`);
    expect(listed.length).toBeGreaterThan(5);
    expect(new Set(listed).size, "pages listed twice").toBe(listed.length);
    expect([...listed].sort(), "docs/guide pages and the index's list").toEqual(present.sort());
  });

  it("marks every skipped block with a reason, and skips few", () => {
    const blocks = allShellBlocks(walkthroughDocs());
    expect(blocks.length).toBeGreaterThan(10);
    const skipped = blocks.filter((b) => b.skip);
    for (const b of skipped) expect(b.skip!.trim().length, `block ${b.index} (${b.file}: ${b.heading})`).toBeGreaterThan(10);
    expect(skipped.length).toBeLessThanOrEqual(2);
  });

  it("runs every shell block in order against a fresh npm start", async () => {
    const docs = walkthroughDocs();
    const blocks = allShellBlocks(docs);
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
    // Its own process group: background jobs the pages start (dev:oidc, dev:chains) are stopped with the session.
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
    const paced = [...log.matchAll(/^@@paced \d+ (\d+)$/gm)].map((m) => Number(m[1]));
    console.log(
      `walk-through: healthy in ${healthyMs} ms, ${blocks.filter((b) => !b.skip).length} blocks in ${walkMs} ms, ` +
        `${paced.length} requests repeated after a rate limit (${paced.reduce((a, b) => a + b, 0)} s waited)\n  ${blockTimes(log, blocks).join("\n  ")}`,
    );

    const failure = judge(log, timedOut ? null : exitCode, blocks, script, docs);
    if (failure) {
      const b = failure.block;
      const where = b ? `block ${b.index} (${b.file} line ${b.line}, under "${b.heading}")` : "the walk-through";
      throw new Error(`${where} failed: ${failure.reason}\n--- its output ---\n${failure.output.slice(-4000)}`);
    }
    // test-results/ is where the test files running beside this one (the browser and fuzz tests) keep their
    // artefacts; on a fresh clone they may create it during the walk.
    const added = readdirSync(repoRoot).filter((name) => !rootBefore.has(name) && name !== "test-results");
    expect(added, "files the walk-through wrote into the repository folder").toEqual([]);
  }, 720_000);
});
