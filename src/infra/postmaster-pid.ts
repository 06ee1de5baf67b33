import { readFileSync, readlinkSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A killed process stays a zombie until its parent reaps it. A postmaster whose Sigil was killed with it
 * (kill -9 of the process group) is reparented to PID 1, and a container's PID 1 may never reap: the pid
 * then answers signal 0 forever although nothing runs. So a zombie counts as gone.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "<pid> (<comm>) <state> ...": comm may hold spaces and parentheses, so read after the last ')'.
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false; // no /proc (not Linux) or already gone: signal 0 decides
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !isZombie(pid);
}

/** /proc facts about a process, or undefined off Linux / when it vanished. */
function procInfo(pid: number): { cwd: string; ppid: number; exe: string } | undefined {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    let exe = "";
    try {
      exe = readlinkSync(`/proc/${ppid}/exe`);
    } catch {
      // parent gone or not ours to read
    }
    return { cwd, ppid, exe };
  } catch {
    return undefined;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  return !isAlive(pid);
}

/**
 * A run that was killed (SIGKILL, crash) leaves <cluster>/postmaster.pid behind, and sometimes the postmaster
 * itself, orphaned, still holding the port. Postgres then refuses to start ("lock file already exists")
 * when the recorded pid has been reused by another process. So:
 * - pid gone, or alive but not a postmaster of this cluster (pid reuse): remove the file;
 * - a postmaster of this cluster whose parent is no longer a Node process (orphaned): shut it down (SIGINT =
 *   fast shutdown, SIGKILL after 30 s) so that we start a fresh one we own;
 * - a postmaster of this cluster still owned by a live Node process: another Sigil uses it, so fail clearly.
 */
export async function clearStalePostmasterPid(clusterDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  let content: string;
  try {
    content = await readFile(pidFile, "utf8");
  } catch {
    return; // no pid file: clean shutdown or never started
  }
  const pid = Number(content.split("\n")[0]?.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) {
    log(`removing stale ${pidFile} (process ${pid || "?"} is gone)`);
    await rm(pidFile, { force: true });
    return;
  }
  const info = procInfo(pid);
  if (!info) return; // cannot tell off Linux: let postgres decide
  if (path.resolve(info.cwd) !== path.resolve(clusterDir)) {
    log(`removing stale ${pidFile} (pid ${pid} now belongs to another process)`);
    await rm(pidFile, { force: true });
    return;
  }
  const ownedByNode = info.ppid > 1 && /(^|\/)node[^/]*$/.test(info.exe);
  if (ownedByNode) {
    throw new Error(`embedded Postgres in ${clusterDir} is already running (pid ${pid}, owned by process ${info.ppid}): is another Sigil using this data dir?`);
  }
  log(`stopping orphaned Postgres (pid ${pid}) left running in ${clusterDir} by a previous run`);
  process.kill(pid, "SIGINT");
  if (!(await waitForExit(pid, 30_000))) {
    process.kill(pid, "SIGKILL");
    await waitForExit(pid, 5_000);
  }
  await rm(pidFile, { force: true });
}
