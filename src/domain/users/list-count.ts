import { createHash } from "node:crypto";
import { countUsers, type UserListQuery } from "../../db/repositories/user-aggregate.js";
import type { Deps } from "../deps.js";

/**
 * The `count` of a users list page. The client's UsersResponse (@dynamic-labs/sdk-api) has an optional
 * `count` the dashboard shows as the total and pages by, so it stays a number of matching users, but
 * counting exactly on every page is an index-only scan of every match: 4-10 ms of Postgres per page for
 * 100,000 users, more than the page itself. So:
 * - up to EXACT_UP_TO matches, the count is exact and fresh: the page statement counts them, stopping after
 *   EXACT_UP_TO + 1 (a bounded index-only scan, ~0.5 ms: the bound is low because even 10,000 cost 2 ms);
 * - beyond that, the exact count is computed once and kept in the store for LARGE_COUNT_TTL_SECONDS per
 *   environment and filter: a large count may lag writes by that long, which nobody paging 1,000+ users
 *   can tell from users being added meanwhile.
 */
export const EXACT_UP_TO = 1_000;
const LARGE_COUNT_TTL_SECONDS = 10;

/** The store key of the filter's large count (hashed: a filter value is caller text of any length). */
function countKey(environmentId: string, filter: UserListQuery["filter"]): string {
  const which = filter ? `${filter.column}\u0000${filter.value}` : "";
  return `users-count:${environmentId}:${createHash("sha256").update(which).digest("base64url")}`;
}

/** A large count kept by a recent page of this environment and filter, or null (then the page counts). */
export async function keptLargeCount(deps: Pick<Deps, "store">, environmentId: string, filter: UserListQuery["filter"]): Promise<number | null> {
  const kept = await deps.store.get(countKey(environmentId, filter));
  return kept === null ? null : Number(kept);
}

/**
 * The count to answer with, given what the page statement counted (bounded at EXACT_UP_TO + 1): exact below
 * the bound; beyond it the exact count, computed and kept for the next pages.
 */
export async function pageCount(
  deps: Pick<Deps, "db" | "store">,
  environmentId: string,
  filter: UserListQuery["filter"],
  bounded: number,
): Promise<number> {
  if (bounded <= EXACT_UP_TO) return bounded;
  const exact = await countUsers(deps.db, environmentId, filter);
  await deps.store.set(countKey(environmentId, filter), String(exact), LARGE_COUNT_TTL_SECONDS);
  return exact;
}
