import type { Queryable } from "../../db/db.js";
import { findUserAggregate, type UserAggregateRecord } from "../../db/repositories/user-aggregate.js";

/** A user with everything the User resource shows: credentials, wallets and sessions. */
export type UserAggregate = UserAggregateRecord;

export function loadUserAggregate(q: Queryable, environmentId: string, userId: string): Promise<UserAggregate | null> {
  return findUserAggregate(q, environmentId, userId);
}
