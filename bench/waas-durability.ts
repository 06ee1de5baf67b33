/**
 * `npm run bench:waas-durability`: the WaaS durability proof. N trials (default 20, `--trials N`) each of
 * refresh, reshare (alternately 2-of-2 -> 2-of-3 and back), export and backup of threshold WaaS wallets,
 * each with the worker process killed (SIGKILL) at a uniformly random moment of the operation, a new worker
 * started, and of signatures and new wallets (made in the api's requests) with the api killed so; afterwards
 * the invariants checked (for signatures and new wallets: no room left half-done, one audit row and event
 * per signature made, one whole wallet per createWaasAccount however often it was retried); exactly one current share set and no pending one, the
 * device's shares sign an EIP-191 message that viem recovers to the wallet's address, old shares sign nothing
 * after a finished refresh/reshare, one `wallet.exported` event and one export room per export id (its key
 * decrypts to the wallet's), one backup per (epoch, holder, location). The harness is
 * bench/support/waas-durability.ts; test/e2e/waas-durability.test.ts runs it with one trial each.
 *
 * Prints a markdown table per operation and writes it into the section "WaaS durability (kill -9)" of
 * docs/reliability.md (`--no-write` to print only).
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:waas-durability -- --trials 20
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "./support/env.js";
import { ACTOR_OPERATIONS, REQUEST_PATH_OPERATIONS, startRig, trialTable, type TrialResult } from "./support/waas-durability.js";

const arg = process.argv.indexOf("--trials");
const trials = Number(arg > 0 ? process.argv[arg + 1] : 20);
const write = !process.argv.includes("--no-write");
const port = Number(process.env.BENCH_PORT ?? 18490);

const started = Date.now();
const rig = await startRig({ port, log: (line) => console.log(line) });
const results: TrialResult[] = [];
let normal: Awaited<ReturnType<typeof rig.calibrate>>;
try {
  normal = await rig.calibrate();
  // One trial of every operation per batch, one kill per batch (each trial at its own random moment): the
  // worker's for the actor's operations, then the api's for signatures and new wallets.
  for (let trial = 1; trial <= trials; trial++) {
    console.log(`\n--- batch ${trial} of ${trials}`);
    results.push(...(await rig.batch(ACTOR_OPERATIONS.map((operation) => ({ operation, trial })), normal)));
    results.push(...(await rig.batch(REQUEST_PATH_OPERATIONS.map((operation) => ({ operation, trial })), normal)));
  }
} finally {
  await rig.stop();
}

const table = trialTable(results, normal);
const violations = results.flatMap((r) => r.violations.map((v) => `- ${r.operation} #${r.trial}: ${v}`));
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\n${table}\n\n${violations.length ? violations.join("\n") : "No invariant violated."}\n(${minutes} min)`);

if (write) {
  const file = path.join(root, "docs/reliability.md");
  const section = [
    "## WaaS durability (kill -9)",
    "",
    `${trials} trials each of refresh, reshare (alternately 2-of-2 -> 2-of-3 and 2-of-3 -> 2-of-2), export and backup of`,
    "threshold EVM wallets, driven through the published client (`@dynamic-labs/sdk-api`) and the room relay as a",
    "device drives them, with Sigil's worker process killed with SIGKILL at a uniformly random moment in [0, 1.5 ×",
    "the operation's normal duration] and a new worker started after a random pause of 0-1 s. Every trial uses a",
    "fresh wallet, made before the kill window. A device whose call failed or timed out reads the outcome from the",
    "room (refresh, reshare, export); a backup call is retried as is. After each trial: exactly one current share",
    "set and none pending, the device's shares (the new ones after a finished refresh/reshare, else the old) sign",
    "an EIP-191 message that viem recovers to the wallet's address, the old shares sign nothing after a finished",
    "refresh/reshare, exactly one `wallet.exported` event and one export room per export id whose key decrypts to",
    "the wallet's, exactly one backup row per (epoch, holder, location).",
    "",
    "Signatures and new wallets are made in the api's own requests (no workflow): their trials kill the api",
    "instead, at the same kind of random moment; the device retries what got no answer (a signing room still open",
    "takes the same part again, createWaasAccount is sent again with the same keygen ids). After each: no room left",
    "half-done, one audit row and one event per signature made (and the answered one's among them), the user's",
    "wallets each whole (one current set, its credential, one `waas_wallet.created`) and none doubled.",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} cores, Node ${process.version}, dev Postgres / Redis / Temporal on the`,
    `same machine; ${minutes} min in all. "normal ms": the median of three runs without a kill (after a warm-up).`,
    '"in flight at the kill": the operation had not finished when the worker died (a kill window of 1.5 × the normal',
    "duration lets about a third of the kills land after the end). \"killed inside an activity\": the history shows a",
    "step's second attempt (the kill hit a running activity, which Temporal retries after its 10 s start-to-close",
    "timeout); the other kills hit a workflow task, the api's call, or the worker between tasks. Times are the",
    "device's, from the operation's first call to its outcome.",
    "",
    table,
    "",
    violations.length ? `Violations:\n\n${violations.join("\n")}` : "Invariant violations: none.",
    "",
    "Re-run: `DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:waas-durability -- --trials 20`",
    "(bench/waas-durability.ts; it writes this section). `test/e2e/waas-durability.test.ts` runs the same harness with",
    "one trial each.",
    "",
  ].join("\n");
  const before = existsSync(file) ? readFileSync(file, "utf8") : "# Reliability\n\n";
  const at = before.indexOf("## WaaS durability (kill -9)");
  const next = at < 0 ? -1 : before.indexOf("\n## ", at + 1);
  const after = at < 0 ? `${before.trimEnd()}\n\n${section}` : `${before.slice(0, at)}${section}${next < 0 ? "" : before.slice(next + 1)}`;
  writeFileSync(file, after);
  console.log(`written to ${path.relative(root, file)}`);
}
if (violations.length) process.exitCode = 1;
