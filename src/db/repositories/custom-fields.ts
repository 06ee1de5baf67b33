import { randomUUID } from "node:crypto";
import { toDate, type Queryable } from "../db.js";

export interface CustomFieldDefinition {
  name: string;
  label: string | null;
  type: "standard" | "custom";
  validationType: "text" | "checkbox" | "select";
  required: boolean;
  enabled: boolean;
  unique: boolean;
  verify: boolean;
  regex: string | null;
  validOptions: { label: string }[];
  checkboxText: string | null;
  position: number;
}

export interface CustomFieldRecord extends CustomFieldDefinition {
  id: string;
  environmentId: string;
  createdAt: Date;
  updatedAt: Date;
}

function toCustomField(r: Record<string, any>): CustomFieldRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    name: r.name,
    label: r.label,
    type: r.type,
    validationType: r.validation_type,
    required: r.required,
    enabled: r.enabled,
    unique: r.is_unique,
    verify: r.verify,
    regex: r.regex,
    validOptions: r.valid_options,
    checkboxText: r.checkbox_text,
    position: r.position,
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}

const COLUMNS: Record<keyof CustomFieldDefinition, string> = {
  name: "name",
  label: "label",
  type: "type",
  validationType: "validation_type",
  required: "required",
  enabled: "enabled",
  unique: "is_unique",
  verify: "verify",
  regex: "regex",
  validOptions: "valid_options",
  checkboxText: "checkbox_text",
  position: "position",
};

export async function insertCustomField(q: Queryable, environmentId: string, f: CustomFieldDefinition): Promise<CustomFieldRecord> {
  const row = await q.one(
    `INSERT INTO custom_fields (id, environment_id, name, label, type, validation_type, required, enabled, is_unique, verify,
                                regex, valid_options, checkbox_text, position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14) RETURNING *`,
    [
      randomUUID(),
      environmentId,
      f.name,
      f.label,
      f.type,
      f.validationType,
      f.required,
      f.enabled,
      f.unique,
      f.verify,
      f.regex,
      JSON.stringify(f.validOptions),
      f.checkboxText,
      f.position,
    ],
  );
  return toCustomField(row);
}

export async function updateCustomField(
  q: Queryable,
  environmentId: string,
  id: string,
  f: Partial<CustomFieldDefinition>,
): Promise<CustomFieldRecord | null> {
  const sets: string[] = ["updated_at = now()"];
  const values: unknown[] = [environmentId, id];
  for (const [key, column] of Object.entries(COLUMNS)) {
    const v = f[key as keyof CustomFieldDefinition];
    if (v === undefined) continue;
    values.push(key === "validOptions" ? JSON.stringify(v) : v);
    sets.push(`${column} = $${values.length}${key === "validOptions" ? "::jsonb" : ""}`);
  }
  const row = await q.oneOrNone(`UPDATE custom_fields SET ${sets.join(", ")} WHERE environment_id = $1 AND id = $2 RETURNING *`, values);
  return row ? toCustomField(row) : null;
}

export async function findCustomField(q: Queryable, environmentId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  const row = await q.oneOrNone(
    `SELECT * FROM custom_fields WHERE environment_id = $1 AND id = $2${opts.forUpdate ? " FOR UPDATE" : ""}`,
    [environmentId, id],
  );
  return row ? toCustomField(row) : null;
}

export async function deleteCustomField(q: Queryable, environmentId: string, id: string): Promise<CustomFieldRecord | null> {
  const row = await q.oneOrNone("DELETE FROM custom_fields WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, id]);
  return row ? toCustomField(row) : null;
}

export async function customFieldNameTaken(q: Queryable, environmentId: string, name: string, exceptId?: string): Promise<boolean> {
  const row = await q.oneOrNone("SELECT 1 FROM custom_fields WHERE environment_id = $1 AND name = $2 AND id IS DISTINCT FROM $3", [
    environmentId,
    name,
    exceptId ?? null,
  ]);
  return row !== null;
}

export async function listCustomFields(
  q: Queryable,
  environmentId: string,
  page: { offset: number; limit: number },
): Promise<{ fields: CustomFieldRecord[]; count: number }> {
  const rows = await q.any(
    `SELECT *, count(*) OVER ()::int AS total FROM custom_fields WHERE environment_id = $1
     ORDER BY position, created_at, id LIMIT $2 OFFSET $3`,
    [environmentId, page.limit, page.offset],
  );
  const count = rows[0]?.total ?? (page.offset > 0 ? await countCustomFields(q, environmentId) : 0);
  return { fields: rows.map(toCustomField), count };
}

async function countCustomFields(q: Queryable, environmentId: string): Promise<number> {
  return (await q.one("SELECT count(*)::int AS n FROM custom_fields WHERE environment_id = $1", [environmentId])).n;
}

/** Every field of the environment (enforcement reads them all; an environment has a handful). */
export async function allCustomFields(q: Queryable, environmentId: string): Promise<CustomFieldRecord[]> {
  const rows = await q.any("SELECT * FROM custom_fields WHERE environment_id = $1 ORDER BY position, created_at, id", [environmentId]);
  return rows.map(toCustomField);
}

/**
 * Sets the values a user holds for the environment's unique fields (absent keys: no value). The unique index
 * custom_field_values_unique_key rejects a value another live user holds, also under concurrent writes
 * (23505, translated by the caller).
 */
export async function setUniqueValues(q: Queryable, environmentId: string, userId: string, values: Map<string, string>): Promise<void> {
  await q.none("DELETE FROM custom_field_values WHERE environment_id = $1 AND user_id = $2", [environmentId, userId]);
  for (const [fieldId, key] of values) {
    await q.none(
      "INSERT INTO custom_field_values (environment_id, custom_field_id, user_id, value_key) VALUES ($1, $2, $3, $4)",
      [environmentId, fieldId, userId, key],
    );
  }
}

export async function clearUserValues(q: Queryable, environmentId: string, userId: string): Promise<void> {
  await q.none("DELETE FROM custom_field_values WHERE environment_id = $1 AND user_id = $2", [environmentId, userId]);
}

export async function clearFieldValues(q: Queryable, environmentId: string, fieldId: string): Promise<void> {
  await q.none("DELETE FROM custom_field_values WHERE environment_id = $1 AND custom_field_id = $2", [environmentId, fieldId]);
}

/** Where a field's value lives on the users row: a whitelisted column expression or a metadata key. */
export type FieldSource = { column: string } | { metadataKey: string };

/**
 * Fills the value table of a field that became unique (or enabled) from the live users' current values. A
 * value two users share fails with 23505 on custom_field_values_unique_key. `column` comes from the domain's
 * whitelist of standard fields, never from input.
 */
export async function backfillFieldValues(q: Queryable, environmentId: string, fieldId: string, source: FieldSource): Promise<void> {
  const value = "column" in source ? source.column : "u.metadata ->> $3";
  await q.none(
    `INSERT INTO custom_field_values (environment_id, custom_field_id, user_id, value_key)
     SELECT u.environment_id, $2, u.id, v.key FROM users u
     CROSS JOIN LATERAL (SELECT lower(btrim(${value})) AS key) v
     WHERE u.environment_id = $1 AND u.deleted_at IS NULL AND v.key IS NOT NULL AND v.key <> ''`,
    [environmentId, fieldId, "metadataKey" in source ? source.metadataKey : null],
  );
}

/** Whether another live user holds this value of a unique field (the index stays the arbiter under races). */
export async function uniqueValueTaken(q: Queryable, environmentId: string, fieldId: string, key: string, exceptUserId?: string): Promise<boolean> {
  const row = await q.oneOrNone(
    `SELECT 1 FROM custom_field_values WHERE environment_id = $1 AND custom_field_id = $2 AND value_key = $3
       AND user_id IS DISTINCT FROM $4`,
    [environmentId, fieldId, key, exceptUserId ?? null],
  );
  return row !== null;
}

/**
 * Serialises field definition changes against user writes of the same environment: user writes hold the
 * shared lock while they read the definitions and store unique values, a field change holds it exclusively
 * while it rebuilds the unique values. Transaction-scoped.
 */
export async function lockDefinitions(q: Queryable, environmentId: string, mode: "shared" | "exclusive"): Promise<void> {
  const fn = mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock";
  await q.any(`SELECT ${fn}(hashtextextended('custom_fields:' || $1, 0))`, [environmentId]);
}
