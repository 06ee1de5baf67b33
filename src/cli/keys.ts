import { randomBytes } from "node:crypto";
import type { Config } from "../config.js";
import { createSealer } from "../crypto/seal.js";
import { rotateAllSigningKeys, rotateEnvironmentSigningKey, signingKeysToRotate, type SigningKeyRotation } from "../domain/environments/key-rotation.js";
import { SEALED_COLUMNS, sealedColumnName } from "../domain/sealing/registry.js";
import { resealColumn, sealedCounts, type ResealOutcome, type SealedCount, type Sealers } from "../domain/sealing/reseal.js";
import { parseCommand, sinceArg, uuidArg } from "./args.js";
import { withDatabase } from "./database.js";
import { CliError, formatTable, printResult, usageError } from "./output.js";
import { createProgress } from "./progress.js";
import { cliActor } from "./services.js";

export const KEYS_USAGE = `usage: sigil keys status [--json]
       sigil keys reseal [--batch-size N] [--pause-ms MS] [--json]
       sigil keys generate-sealing-key [--id ID] [--json]
       sigil keys rotate-signing (--environment ID | --all [--created-before TIME]) [--batch-size N] [--json]

  status                 how many sealed values each key seals, per sealed column: an old key can be
                         removed from SIGIL_SEALING_KEYS (SIGIL_BACKUP_SEALING_KEYS) once it seals none
  reseal                 reseal every value not under the current (first) key, in batches; safe while the
                         service runs, and resumed by running it again
  generate-sealing-key   a new entry for SIGIL_SEALING_KEYS (or SIGIL_BACKUP_SEALING_KEYS): listed first,
                         it seals new values (every listed key opens)
  rotate-signing         a new JWT signing key for the environment(s); the old one stays in the JWKS until
                         the last token it signed expires. --all resumes with the --created-before it prints`;

const DEFAULT_BATCH_SIZE = 500;
const MAX_BATCH_SIZE = 10_000;
// Same rule as src/crypto/seal.ts: no "." in an id, so that the compact form splits unambiguously.
const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

function intArg(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`${name} must be an integer from ${min} to ${max}, got "${value}"`, KEYS_USAGE);
  return n;
}

/** The counts of every column added up per key set and key id. */
function keyTotals(columns: { keySet: string; keys: SealedCount[] }[]) {
  const totals = new Map<string, { keySet: string; keyId: string; key: SealedCount["key"]; count: number }>();
  for (const c of columns)
    for (const k of c.keys) {
      const t = totals.get(`${c.keySet}/${k.keyId}`) ?? { keySet: c.keySet, keyId: k.keyId, key: k.key, count: 0 };
      t.count += k.count;
      totals.set(`${c.keySet}/${k.keyId}`, t);
    }
  return [...totals.values()];
}

const sealersOf = (config: Config): Sealers => ({ sealing: createSealer(config.sealingKeys), backup: createSealer(config.backups.sealingKeys) });

/** `sigil keys ...`: rotation of the sealing keys and of the environments' signing keys. */
export async function keysCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "help" || sub === "--help" || rest.includes("--help")) {
    (sub === undefined ? console.error : console.log)(KEYS_USAGE);
    return sub === undefined ? 2 : 0;
  }
  switch (sub) {
    case "status":
      return status(rest, config);
    case "reseal":
      return reseal(rest, config);
    case "generate-sealing-key":
      return generateSealingKey(rest, config);
    case "rotate-signing":
      return rotateSigning(rest, config);
    default:
      throw usageError(sub ? `unknown subcommand keys ${sub}` : "missing subcommand", KEYS_USAGE);
  }
}

async function status(args: string[], config: Config): Promise<number> {
  const { values } = parseCommand(args, {}, KEYS_USAGE);
  const sealers = sealersOf(config);
  const columns = await withDatabase(
    config,
    async (db) => {
      const out = [];
      for (const c of SEALED_COLUMNS) out.push({ column: sealedColumnName(c), keySet: c.keySet, keys: await sealedCounts(db, sealers, c) });
      return out;
    },
    { migrate: false },
  );
  const totals = keyTotals(columns);
  const outdated = totals.filter((t) => t.key !== "current" && t.count > 0);
  printResult(!!values.json, { currentKeys: { sealing: sealers.sealing.currentKeyId, backup: sealers.backup.currentKeyId }, keys: totals, columns }, () => {
    const rows = columns.flatMap((c) => c.keys.map((k) => ({ column: c.column, keySet: c.keySet, ...k })));
    const summary = outdated.length
      ? `values under other keys than the current ones: ${outdated.map((t) => `${t.keyId} (${t.keySet}, ${t.key}): ${t.count}`).join("; ")}; run \`sigil keys reseal\``
      : `every sealed value is under the current key (${sealers.sealing.currentKeyId}; backups ${sealers.backup.currentKeyId}): older keys can be removed`;
    return `${formatTable(rows, [
      { header: "column", value: (r) => r.column },
      { header: "key set", value: (r) => r.keySet },
      { header: "key id", value: (r) => r.keyId || "(not sealed form)" },
      { header: "key", value: (r) => r.key },
      { header: "values", value: (r) => r.count },
    ])}\n\n${summary}`;
  });
  return 0;
}

async function reseal(args: string[], config: Config): Promise<number> {
  const { values } = parseCommand(args, { "batch-size": { type: "string" }, "pause-ms": { type: "string" } }, KEYS_USAGE);
  const batchSize = intArg(values["batch-size"], "--batch-size", DEFAULT_BATCH_SIZE, 1, MAX_BATCH_SIZE);
  const pauseMs = intArg(values["pause-ms"], "--pause-ms", 0, 0, 60_000);
  const json = !!values.json;
  const sealers = sealersOf(config);
  const outcomes = await withDatabase(
    config,
    async (db) => {
      const done: ResealOutcome[] = [];
      for (const c of SEALED_COLUMNS) {
        const total = (await sealedCounts(db, sealers, c)).filter((k) => k.key !== "current").reduce((n, k) => n + k.count, 0);
        const progress = total > 0 ? createProgress({ total, label: `reseal ${sealedColumnName(c)}`, json }) : undefined;
        try {
          done.push(await resealColumn(db, sealers, c, { batchSize, pauseMs, onBatch: (n) => progress?.tick(n) }));
        } finally {
          progress?.done();
        }
      }
      return done;
    },
    { migrate: false },
  );
  const sum = (f: (o: ResealOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  const report = { resealed: sum((o) => o.resealed), changed: sum((o) => o.changed), unopenable: sum((o) => o.unopenable), columns: outcomes };
  printResult(json, report, () => {
    const touched = outcomes.filter((o) => o.resealed || o.changed || o.unopenable);
    const lines = [
      formatTable(touched, [
        { header: "column", value: (o) => o.column },
        { header: "key set", value: (o) => o.keySet },
        { header: "resealed", value: (o) => o.resealed },
        { header: "changed meanwhile", value: (o) => o.changed },
        { header: "unopenable", value: (o) => o.unopenable },
        { header: "unopenable rows", value: (o) => o.unopenableRows.map((k) => k.join("/")) },
      ]),
      "",
      `resealed ${report.resealed}; ${report.changed} changed by the service meanwhile (its values stand)` +
        (report.unopenable ? `; ${report.unopenable} could not be opened with any configured key and were left as they are` : ""),
    ];
    return lines.join("\n");
  });
  if (report.unopenable > 0) {
    console.error(
      `sigil: ${report.unopenable} sealed values open with no configured key (unknown key id, or not bound to their row): ` +
        "keep the keys that sealed them configured, or look at the rows named above; `sigil keys status` shows their key ids",
    );
    return 1;
  }
  return 0;
}

function generateSealingKey(args: string[], config: Config): number {
  const { values } = parseCommand(args, { id: { type: "string" } }, KEYS_USAGE);
  const taken = new Set([...config.sealingKeys, ...config.backups.sealingKeys].map((k) => k.id));
  let id = values.id;
  if (id === undefined) {
    const day = new Date().toISOString().slice(0, 10).replaceAll("-", "");
    id = `k${day}`;
    for (let n = 2; taken.has(id); n++) id = `k${day}-${n}`;
  } else {
    if (!KEY_ID_SHAPE.test(id)) throw usageError(`--id must be 1 to 64 letters, digits, "_" or "-", got "${id}"`, KEYS_USAGE);
    if (taken.has(id)) throw new CliError(`a configured sealing key is already named ${id}: choose another id`, "sealing_key_id_taken");
  }
  const entry = `${id}:${randomBytes(32).toString("base64")}`;
  printResult(!!values.json, { id, entry }, () => entry);
  if (!values.json)
    console.error(
      `sigil: add it to SIGIL_SEALING_KEYS (or SIGIL_BACKUP_SEALING_KEYS) after the current keys on every api and worker; once all run ` +
        `with it, move it first ("${id}:...,<current entries>") and roll out again; then run \`sigil keys reseal\``,
    );
  return 0;
}

async function rotateSigning(args: string[], config: Config): Promise<number> {
  const { values } = parseCommand(
    args,
    { environment: { type: "string" }, all: { type: "boolean" }, "created-before": { type: "string" }, "batch-size": { type: "string" } },
    KEYS_USAGE,
  );
  const json = !!values.json;
  if (!!values.environment === !!values.all) throw usageError("give either --environment ID or --all", KEYS_USAGE);
  if (values["created-before"] !== undefined && !values.all) throw usageError("--created-before goes with --all", KEYS_USAGE);
  const sealer = createSealer(config.sealingKeys);
  const actor = cliActor();
  let rotated: SigningKeyRotation[];
  if (values.environment) {
    const environmentId = uuidArg(values.environment, "--environment", KEYS_USAGE);
    rotated = [
      await withDatabase(config, (db) => rotateEnvironmentSigningKey({ db, sealer, sessionMaxAgeSeconds: config.sessionMaxAgeSeconds }, environmentId, actor), { migrate: false }).catch((err: unknown) => {
        throw (err as { code?: string }).code === "not_found" ? new CliError(`no environment ${environmentId}`, "not_found") : err;
      }),
    ];
  } else {
    const createdBefore = values["created-before"] ? sinceArg(values["created-before"], "--created-before", KEYS_USAGE) : new Date();
    const batchSize = intArg(values["batch-size"], "--batch-size", 100, 1, MAX_BATCH_SIZE);
    console.error(`sigil: rotating the environments whose key predates ${createdBefore.toISOString()}; if interrupted, resume with`);
    console.error(`  sigil keys rotate-signing --all --created-before ${createdBefore.toISOString()}`);
    rotated = await withDatabase(
      config,
      async (db) => {
        const progress = createProgress({ total: await signingKeysToRotate({ db }, createdBefore), label: "rotate signing keys", json });
        try {
          return await rotateAllSigningKeys({ db, sealer, sessionMaxAgeSeconds: config.sessionMaxAgeSeconds }, { actor, createdBefore, batchSize, onRotated: () => progress.tick() });
        } finally {
          progress.done();
        }
      },
      { migrate: false },
    );
  }
  printResult(json, { rotated, requestId: actor.requestId }, () =>
    [
      formatTable(rotated, [
        { header: "environment", value: (r) => r.environmentId },
        { header: "new kid", value: (r) => r.kid },
        { header: "retired kid", value: (r) => r.retiredKid },
        { header: "published until", value: (r) => r.publishedUntil },
      ]),
      "",
      `rotated ${rotated.length}: api processes sign with the new keys within 30 s; the retired keys stay in the JWKS until the time shown (audit request id ${actor.requestId})`,
    ].join("\n"),
  );
  return 0;
}
