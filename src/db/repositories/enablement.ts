import type { Queryable } from "../db.js";

/** Environment-scoped tables whose rows enable and disable through an `enabled_at` column. */
export type ToggleableTable =
  | "providers"
  | "allowlists"
  | "gates"
  | "exchanges"
  | "name_services"
  | "global_wallet_settings"
  | "global_wallet_access_controls";

/**
 * The one rule of every enable / disable operation: enabling keeps the first enabling time, disabling sets
 * `enabled_at` to null. The row is picked in the environment by its `id`, by `chain_name`, or, for tables
 * holding one row per environment, by the environment alone. Returns the updated row, or null when absent.
 */
export function setEnabledAt(
  q: Queryable,
  table: ToggleableTable,
  environmentId: string,
  key: { id: string } | { chain_name: string } | null,
  enabled: boolean,
): Promise<Record<string, any> | null> {
  const [column, value] = key ? (Object.entries(key)[0] as [string, string]) : [null, null];
  return q.oneOrNone(
    `UPDATE ${table} SET enabled_at = CASE WHEN $2 THEN COALESCE(enabled_at, now()) ELSE NULL END, updated_at = now()
     WHERE environment_id = $1${column ? ` AND ${column} = $3` : ""} RETURNING *`,
    column ? [environmentId, enabled, value] : [environmentId, enabled],
  );
}
