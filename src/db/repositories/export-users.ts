import type { ExportFilter } from "./exports.js";

/** One exported user: the profile columns and the addresses of its live wallets, no secrets. */
export interface ExportUserRow {
  id: string;
  email: string | null;
  phone_number: string | null;
  alias: string | null;
  first_name: string | null;
  last_name: string | null;
  username: string | null;
  created_at: Date;
  updated_at: Date;
  wallets: { chain: string; address: string }[];
}

/** filterColumn -> users column; a whitelist, never caller text in SQL. */
const TEXT_COLUMNS: Record<string, string> = {
  email: "u.email",
  phoneNumber: "u.phone_number",
  alias: "u.alias",
  firstName: "u.first_name",
  lastName: "u.last_name",
  username: "u.username",
};

const likeContains = (v: string) => `%${v.replace(/[\\%_]/g, "\\$&")}%`;

/**
 * The query an export streams through a cursor (pg-query-stream): the environment's live users matching the
 * filter, newest first (users_environment_idx order), each with its wallet addresses aggregated.
 */
export function exportUsersQuery(environmentId: string, filter: ExportFilter): { text: string; values: unknown[] } {
  const values: unknown[] = [environmentId];
  const where = ["u.environment_id = $1", "u.deleted_at IS NULL"];
  const walletMatch = (p: string) =>
    `EXISTS (SELECT 1 FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL AND lower(w.address) = lower(${p}))`;
  const value = filter.filterValue?.trim();
  if (value) {
    const column = filter.filterColumn || "all";
    if (column === "id") where.push(`u.id = $${values.push(value)}::uuid`);
    else if (column === "walletPublicKey") where.push(walletMatch(`$${values.push(value)}`));
    else if (TEXT_COLUMNS[column]) where.push(`${TEXT_COLUMNS[column]} ILIKE $${values.push(likeContains(value))}`);
    else {
      const like = `$${values.push(likeContains(value))}`;
      const exact = `$${values.push(value)}`;
      where.push(`(${Object.values(TEXT_COLUMNS).map((c) => `${c} ILIKE ${like}`).join(" OR ")} OR ${walletMatch(exact)})`);
    }
  }
  if (filter.createdAfter) where.push(`u.created_at >= $${values.push(filter.createdAfter)}::timestamptz`);
  if (filter.createdBefore) where.push(`u.created_at < $${values.push(filter.createdBefore)}::timestamptz`);
  const text = `SELECT u.id, u.email, u.phone_number, u.alias, u.first_name, u.last_name, u.username, u.created_at, u.updated_at,
      coalesce((SELECT json_agg(json_build_object('chain', w.chain, 'address', w.address) ORDER BY w.created_at, w.id)
                FROM wallets w WHERE w.environment_id = u.environment_id AND w.user_id = u.id AND w.deleted_at IS NULL), '[]'::json) AS wallets
    FROM users u
    WHERE ${where.join(" AND ")}
    ORDER BY u.created_at DESC, u.id`;
  return { text, values };
}
