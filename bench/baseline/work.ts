/**
 * The work of the benchmarked calls without the framework around it, as a bare handler would do it: the
 * same cached API-token lookup (hash, then the process cache, then the shared store), the same tenancy check (the token's
 * environment), the same SQL statements through the same repositories (for the list, the same domain
 * function), and the result out. The bare servers in this folder call these; Sigil's handlers do the same
 * plus validation, permissions, audit context, the request log and protobuf/REST transcoding.
 */
import { authenticateApiToken } from "../../src/domain/auth/api-token-auth.js";
import { connectDatabase } from "../../src/db/db.js";
import { allCustomFields } from "../../src/db/repositories/custom-fields.js";
import { findUserAggregate } from "../../src/db/repositories/user-aggregate.js";
import { listUsers as listUserViews } from "../../src/domain/users/service.js";
import { createStore } from "../../src/store/store.js";

const db = connectDatabase(process.env.DATABASE_URL!);
const store = await createStore(process.env.REDIS_URL!);
const deps = { db, store };

export class BareError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function environmentOf(authorization: string | undefined, environmentId: string): Promise<string> {
  const principal = await authenticateApiToken(deps, authorization ?? null).catch(() => {
    throw new BareError(401, "unauthenticated");
  });
  if (principal.kind !== "api_token" || principal.environmentId !== environmentId) throw new BareError(404, "environment not found");
  return environmentId;
}

/** GET user: token, tenancy, then the user aggregate and the environment's custom fields. */
export async function getUser(authorization: string | undefined, environmentId: string, userId: string) {
  const env = await environmentOf(authorization, environmentId);
  const [aggregate, fields] = await Promise.all([findUserAggregate(db, env, userId), allCustomFields(db, env)]);
  if (!aggregate) throw new BareError(404, "user not found");
  return { aggregate, fields };
}

/**
 * A page of users: token, tenancy, then the very domain function Sigil's handler calls (the list statement,
 * the custom fields, the count policy of src/domain/users/list-count.ts), so both sides run the same SQL.
 */
export async function listUsers(authorization: string | undefined, environmentId: string, limit: number, offset: number) {
  const env = await environmentOf(authorization, environmentId);
  return listUserViews(deps, { environmentId: env }, { orderBy: { column: "createdAt", direction: "desc" }, offset, limit });
}
