import { randomBytes } from "node:crypto";
import { createSealer, type Sealer, type SealingKey } from "../../src/crypto/seal.js";
import type { Database } from "../../src/db/db.js";
import { pgp } from "../../src/db/db.js";
import type { Deps } from "../../src/domain/deps.js";
import { ensureSigningKey } from "../../src/domain/environments/keys.js";
import { SEALED_COLUMNS, sealedColumnName, type SealedColumn } from "../../src/domain/sealing/registry.js";
import type { Sealers } from "../../src/domain/sealing/reseal.js";
import type { EnvironmentAccess } from "../../src/domain/tenancy/access.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { createTestAccount } from "../../src/domain/test-accounts/service.js";
import { createWebhook } from "../../src/domain/webhooks/service.js";

export const newKey = (id: string): SealingKey => ({ id, key: randomBytes(32) });

/** SIGIL_SEALING_KEYS's form of a key list (for a child `sigil` process). */
export const keysSetting = (keys: SealingKey[]) => keys.map((k) => `${k.id}:${k.key.toString("base64")}`).join(",");

export const seedAccess = (environmentId: string, t: BootstrapResult): EnvironmentAccess => ({
  organizationId: t.organizationId,
  projectId: t.projectId,
  environmentId,
  environmentName: environmentId === t.environmentId ? "sandbox" : "live",
  role: null,
  actor: { tokenId: "", memberId: null, accountId: null, requestId: "seed" },
});

/**
 * Sealed values of several columns in both environments of a tenant, sealed by `sealer` (an old key, as a
 * deployment that ran before the rotation left them): the signing key, the test account's code and
 * `webhooks` disabled webhooks (no deliveries start) per environment.
 */
export async function seedSealedValues(deps: Deps, sealer: Sealer, t: BootstrapResult, webhooks: number) {
  const old = { ...deps, sealer };
  const codes = new Map<string, string>();
  for (const environmentId of [t.environmentId, t.liveEnvironmentId]) {
    await ensureSigningKey(old, deps.db, environmentId);
    codes.set(environmentId, (await createTestAccount(old, seedAccess(environmentId, t), { email: null, phoneNumber: null })).otpCode);
    for (let i = 0; i < webhooks; i++)
      await createWebhook(old, seedAccess(environmentId, t), { url: `https://hooks.example.com/${i}`, description: null, events: ["user.created"], enabled: false });
  }
  return codes;
}

/** Per registry column: how many values each key id seals, after opening every one of them (throws on one that does not open). */
export async function openEverySealedValue(db: Database, sealers: Sealers): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const c of SEALED_COLUMNS) {
    const rows = await db.any(`SELECT ${[...new Set([c.column, ...c.reads])].map((n) => pgp.as.name(n)).join(", ")} FROM ${pgp.as.name(c.table)} WHERE ${pgp.as.name(c.column)} IS NOT NULL`);
    for (const r of rows) {
      const sealed = r[c.column] as string;
      try {
        sealers[c.keySet].open(sealed, c.aad(r));
      } catch (err) {
        throw new Error(`${sealedColumnName(c)}: a value does not open (${String(err)})`);
      }
      const keyId = sealed.split(".")[1]!;
      const counts = (out[sealedColumnName(c)] ??= {});
      counts[keyId] = (counts[keyId] ?? 0) + 1;
    }
  }
  return out;
}

/** The total per key id over every column of a count from openEverySealedValue. */
export const totalsByKey = (counts: Record<string, Record<string, number>>) => {
  const totals: Record<string, number> = {};
  for (const perKey of Object.values(counts)) for (const [k, n] of Object.entries(perKey)) totals[k] = (totals[k] ?? 0) + n;
  return totals;
};

/** The sealer pair of a deployment configured with these keys (first seals). */
export const sealersOf = (sealing: SealingKey[], backup: SealingKey[]): Sealers => ({ sealing: createSealer(sealing), backup: createSealer(backup) });

const SEALED_SHAPE = "v1\\.[A-Za-z0-9_-]{1,64}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+";

/**
 * Every (table, column) of the database's public schema with a value of the sealed shape that the registry
 * of sealed columns (SEALED_COLUMNS) does not list: a text column holding one as its value, or a jsonb /
 * json column holding one anywhere inside (a sealed value copied into a document is never resealed).
 */
export async function sealedColumnsOutsideRegistry(db: Database, registry: readonly SealedColumn[] = SEALED_COLUMNS): Promise<string[]> {
  const known = new Set(registry.map(sealedColumnName));
  const columns = await db.any<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = 'public' AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY')
      ORDER BY 1, 2`,
  );
  const byTable = new Map<string, { column_name: string; data_type: string }[]>();
  for (const c of columns) if (!known.has(`${c.table_name}.${c.column_name}`)) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c]);
  const found: string[] = [];
  // One statement per table: which of its columns hold a value of the sealed shape (anywhere inside a document or array).
  for (const [table, cols] of byTable) {
    const tests = cols.map((c) => {
      const col = pgp.as.name(c.column_name);
      const test = c.data_type === "text" || c.data_type === "character varying" ? `${col} ~ '^${SEALED_SHAPE}$'` : `${col}::text ~ '${SEALED_SHAPE}'`;
      return `bool_or(${test}) AS ${pgp.as.name(c.column_name)}`;
    });
    const row = await db.one(`SELECT ${tests.join(", ")} FROM ${pgp.as.name(table)}`);
    for (const c of cols) if (row[c.column_name]) found.push(`${table}.${c.column_name}`);
  }
  return found;
}
