import { randomUUID } from "node:crypto";
import { DomainError, notFound, unprocessable } from "../../errors.js";
import type { Queryable } from "../../db/db.js";
import * as customFields from "../../db/repositories/custom-fields.js";
import type { CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import {
  findUserAggregate,
  listUserAggregates,
  type UserAggregateRecord as UserAggregate,
  type UserListQuery,
} from "../../db/repositories/user-aggregate.js";
import { enforceFields, missingFields, uniqueKey, valueOf, type UserFieldState } from "../custom-fields/rules.js";
import { audited, type RecordChange } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { markSessionsRevoked } from "../sessions/revocation.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { normaliseEmail } from "../verifications/email.js";
import { prepareWallet, type WalletInput } from "../wallets/service.js";
import { EXACT_UP_TO, keptLargeCount, pageCount } from "./list-count.js";

export interface OauthAccountInput {
  provider: string;
  accountId: string;
  emails: string[];
  displayName?: string;
  username?: string;
  photos: string[];
  profile?: Record<string, unknown>;
  /** The provider's tokens: sealed at rest, returned only by getOauthAccessToken. */
  accessToken?: string;
  refreshToken?: string;
  accessTokenExpiresAt?: Date;
}

export interface CreateUserInput extends users.UserProfile {
  wallets: WalletInput[];
  oauthAccounts: OauthAccountInput[];
}

/** A user as the API shows it: the aggregate and the required custom fields it lacks. */
export interface UserView {
  aggregate: UserAggregate;
  missingFields: CustomFieldRecord[];
}

/** The associated data that binds a sealed OAuth token to its credential row. */
export const oauthTokenAad = (credentialId: string, kind: "access" | "refresh") => `verified_credential:${credentialId}:oauth_${kind}_token`;

/** What the audit trail keeps of a user: profile fields, no credentials secrets. */
export function userSnapshot(u: users.UserRecord) {
  return {
    id: u.id,
    email: u.email,
    phoneNumber: u.phoneNumber,
    alias: u.alias,
    firstName: u.firstName,
    lastName: u.lastName,
    username: u.username,
    jobTitle: u.jobTitle,
    country: u.country,
    team: u.team,
    tShirtSize: u.tShirtSize,
    policiesConsent: u.policiesConsent,
    externalUserId: u.externalUserId,
    metadata: u.metadata,
  };
}

/**
 * An operator's e-mail goes through the one e-mail normaliser too (a plain address, its domain in ASCII),
 * so that sign-in, which compares lower-cased canonical addresses, finds the user it names. The local
 * part keeps the operator's case: it is shown, and every comparison is case-insensitive.
 */
function withCanonicalEmail<T extends { email?: string | null }>(p: T): T {
  if (!p.email) return p;
  const canonical = normaliseEmail(p.email);
  const given = p.email.trim().normalize("NFC");
  return { ...p, email: given.slice(0, given.lastIndexOf("@")) + canonical.slice(canonical.lastIndexOf("@")) };
}

const stateOf = (u: users.UserProfile): UserFieldState => ({ ...u, metadata: u.metadata ?? {} });

const EMAIL_TAKEN = () => unprocessable("email_already_exists", "a user with this email already exists in this environment");
const PHONE_TAKEN = () => unprocessable("phone_number_already_exists", "a user with this phone number already exists in this environment");
const EXTERNAL_TAKEN = () =>
  unprocessable("external_user_id_already_exists", "a user with this externalUserId already exists in this environment");
const NOT_UNIQUE = (field?: string) =>
  unprocessable("custom_field_not_unique", `another user of this environment already has this ${field ?? "custom field"} value`, field ? { field } : undefined);

/** Two concurrent writes can both pass the checks; the unique indexes decide, and we answer the same 422. */
function translateUniqueViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505") {
    if (e.constraint === "users_environment_email_key") throw EMAIL_TAKEN();
    if (e.constraint === "users_environment_phone_key") throw PHONE_TAKEN();
    if (e.constraint === "users_environment_external_id_key") throw EXTERNAL_TAKEN();
    if (e.constraint === "wallets_environment_address_key")
      throw unprocessable("wallet_already_linked", "this wallet is already linked to a user of this environment");
    if (e.constraint === "verified_credentials_oauth_key")
      throw unprocessable("oauth_account_already_linked", "this OAuth account is already linked to a user of this environment");
    if (e.constraint === "custom_field_values_unique_key") throw NOT_UNIQUE();
  }
  throw err;
}

/**
 * Custom-field enforcement inside a user write: reads the definitions under the shared definitions lock,
 * checks the new state, and stores the user's unique values (pre-checked for a clear error; the unique
 * index stays the arbiter under concurrency).
 */
async function enforceAndStoreFields(
  t: Queryable,
  environmentId: string,
  userId: string | null,
  before: UserFieldState | null,
  after: UserFieldState,
): Promise<(id: string) => Promise<void>> {
  await customFields.lockDefinitions(t, environmentId, "shared");
  const fields = await customFields.allCustomFields(t, environmentId);
  const unique = enforceFields(fields, before, after);
  for (const [fieldId, key] of unique) {
    if (await customFields.uniqueValueTaken(t, environmentId, fieldId, key, userId ?? undefined))
      throw NOT_UNIQUE(fields.find((f) => f.id === fieldId)?.name);
  }
  return (id) => customFields.setUniqueValues(t, environmentId, id, unique);
}

/**
 * Creates a user with credentials the caller has already verified: the e-mail and phone number become
 * verified credentials, wallets are linked (addresses validated per chain) and OAuth accounts attached
 * (their tokens sealed), custom fields enforced, all in one transaction with its audit row. Uniqueness is
 * per environment and answers 422 with a specific code.
 */
export async function createUser(deps: Deps, access: EnvironmentAccess, given: CreateUserInput): Promise<UserView> {
  const environmentId = access.environmentId;
  const input = withCanonicalEmail(given);
  const prepared = input.wallets.map(prepareWallet);
  const userId = await audited(deps, access, (t, record) => insertUserWithCredentials(deps, t, record, environmentId, input, prepared)).catch(
    translateUniqueViolation,
  );
  return getUser(deps, access, userId);
}

async function insertUserWithCredentials(
  deps: Deps,
  t: Queryable,
  record: RecordChange,
  environmentId: string,
  input: CreateUserInput,
  prepared: wallets.NewWallet[],
): Promise<string> {
  if (input.email && (await users.userExistsWithEmail(t, environmentId, input.email))) throw EMAIL_TAKEN();
  if (input.phoneNumber && (await users.userExistsWithPhone(t, environmentId, input.phoneNumber))) throw PHONE_TAKEN();
  if (input.externalUserId && (await users.userExistsWithExternalId(t, environmentId, input.externalUserId))) throw EXTERNAL_TAKEN();
  for (const w of prepared) {
    if (await wallets.addressLinked(t, environmentId, w.chain, w.address))
      throw unprocessable("wallet_already_linked", `wallet ${w.address} is already linked to a user of this environment`);
  }
  for (const o of input.oauthAccounts) {
    if (await users.oauthAccountTaken(t, environmentId, o.provider, o.accountId))
      throw unprocessable("oauth_account_already_linked", "this OAuth account is already linked to a user of this environment");
  }
  const storeFields = await enforceAndStoreFields(t, environmentId, null, null, stateOf(input));
  const user = await users.insertUser(t, environmentId, input);
  await storeFields(user.id);
  if (input.email) await users.insertCredential(t, environmentId, user.id, { format: "email", email: input.email });
  if (input.phoneNumber) await users.insertCredential(t, environmentId, user.id, { format: "phoneNumber", phoneNumber: input.phoneNumber });
  for (const w of prepared) await wallets.insertWallet(t, environmentId, user.id, w);
  for (const o of input.oauthAccounts) {
    const id = randomUUID();
    await users.insertCredential(t, environmentId, user.id, {
      id,
      format: "oauth",
      oauthProvider: o.provider,
      oauthAccountId: o.accountId,
      oauthUsername: o.username,
      oauthDisplayName: o.displayName,
      oauthEmails: o.emails,
      oauthPhotos: o.photos,
      oauthMetadata: o.profile ?? {},
      oauthAccessTokenSealed: o.accessToken ? deps.sealer.seal(o.accessToken, oauthTokenAad(id, "access")) : null,
      oauthRefreshTokenSealed: o.refreshToken ? deps.sealer.seal(o.refreshToken, oauthTokenAad(id, "refresh")) : null,
      oauthAccessTokenExpiresAt: o.accessTokenExpiresAt ?? null,
    });
  }
  await record({
    action: "user.created",
    resourceType: "user",
    resourceId: user.id,
    after: {
      ...userSnapshot(user),
      wallets: prepared.map((w) => ({ chain: w.chain, address: w.address })),
      oauthAccounts: input.oauthAccounts.map((o) => ({ provider: o.provider, accountId: o.accountId })),
    },
  });
  return user.id;
}

/** One row of a bulk create: its input, or why it could not even be read. */
export type BulkRow = { input: CreateUserInput } | { error: DomainError };
export type BulkResult = { index: number; user?: UserView; error?: { code: string; error: string } };

/** Keys that must be unique in an environment, per row, to detect duplicates inside one batch. */
function uniqueKeysOf(input: CreateUserInput, prepared: wallets.NewWallet[], fields: CustomFieldRecord[]): [string, string][] {
  const keys: [string, string][] = [];
  if (input.email) keys.push([`email:${input.email.toLowerCase()}`, "email_already_exists"]);
  if (input.phoneNumber) keys.push([`phone:${input.phoneNumber}`, "phone_number_already_exists"]);
  if (input.externalUserId) keys.push([`external:${input.externalUserId}`, "external_user_id_already_exists"]);
  for (const w of prepared) keys.push([`wallet:${w.chain}:${w.address}`, "wallet_already_linked"]);
  for (const o of input.oauthAccounts) keys.push([`oauth:${o.provider}:${o.accountId}`, "oauth_account_already_linked"]);
  const state = stateOf(input);
  for (const f of fields) {
    if (!f.enabled || !f.unique) continue;
    const v = valueOf(f, state);
    if (v !== undefined && v !== null && v !== "") keys.push([`field:${f.id}:${uniqueKey(v)}`, "custom_field_not_unique"]);
  }
  return keys;
}

const BULK_CONCURRENCY = 4;

/**
 * Creates many users, each row on its own (own transaction and audit row): a bad row fails alone and
 * changes nothing. Rows that repeat a unique value of an earlier row of the batch (e-mail, phone number,
 * external id, wallet, OAuth account, unique custom field) fail with the code the conflict would have and
 * are not attempted, so the result does not depend on the order rows happen to commit in.
 */
export async function bulkCreateUsers(deps: Deps, access: EnvironmentAccess, rows: BulkRow[]): Promise<BulkResult[]> {
  const fields = await customFields.allCustomFields(deps.db, access.environmentId);
  const seen = new Map<string, number>();
  const jobs: { index: number; input: CreateUserInput; prepared: wallets.NewWallet[] }[] = [];
  const results: BulkResult[] = rows.map((_, index) => ({ index }));
  const fail = (index: number, err: unknown) => {
    if (!(err instanceof DomainError)) throw err;
    results[index]!.error = { code: err.code, error: err.message };
  };
  rows.forEach((row, index) => {
    if ("error" in row) return fail(index, row.error);
    let prepared: wallets.NewWallet[];
    let input: CreateUserInput;
    try {
      input = withCanonicalEmail(row.input);
      prepared = input.wallets.map(prepareWallet);
    } catch (err) {
      return fail(index, err);
    }
    const keys = uniqueKeysOf(input, prepared, fields);
    const dup = keys.find(([k]) => seen.has(k));
    if (dup) return fail(index, unprocessable(dup[1], `row ${index} repeats a unique value of row ${seen.get(dup[0])} of this batch`));
    for (const [k] of keys) seen.set(k, index);
    jobs.push({ index, input, prepared });
  });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      try {
        const id = await audited(deps, access, (t, record) => insertUserWithCredentials(deps, t, record, access.environmentId, job.input, job.prepared)).catch(
          translateUniqueViolation,
        );
        results[job.index]!.user = await getUser(deps, access, id);
      } catch (err) {
        fail(job.index, err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, jobs.length) }, worker));
  return results;
}

export async function getUser(deps: Deps, access: EnvironmentAccess, userId: string): Promise<UserView> {
  // Two independent reads, side by side: one round trip of latency instead of two.
  const [aggregate, fields] = await Promise.all([
    findUserAggregate(deps.db, access.environmentId, userId),
    customFields.allCustomFields(deps.db, access.environmentId),
  ]);
  if (!aggregate) throw notFound("user");
  return { aggregate, missingFields: missingFields(fields, stateOf(aggregate.user)) };
}

/**
 * A page of users and the number matching the filter (list-count.ts: exact up to 1,000 matches, a count
 * kept for a few seconds beyond). Takes only what it reads, so the bench's bare baseline runs this very code.
 */
export async function listUsers(
  deps: Pick<Deps, "db" | "store">,
  access: Pick<EnvironmentAccess, "environmentId">,
  query: UserListQuery,
): Promise<{ users: UserView[]; count: number }> {
  const env = access.environmentId;
  const kept = await keptLargeCount(deps, env, query.filter);
  const [page, fields] = await Promise.all([
    listUserAggregates(deps.db, env, query, kept === null ? EXACT_UP_TO : null),
    customFields.allCustomFields(deps.db, env),
  ]);
  const count = kept ?? (await pageCount(deps, env, query.filter, page.count ?? 0));
  return { count, users: page.users.map((a) => ({ aggregate: a, missingFields: missingFields(fields, stateOf(a.user)) })) };
}

/** A partial profile update: keys left undefined keep their value; null clears. */
export type UserPatch = users.UserProfile;

/**
 * Updates a user's profile. A changed e-mail or phone number replaces the matching verified credential;
 * uniqueness and custom fields are enforced as on create (see enforceFields for what an update must keep).
 */
export async function updateUser(deps: Deps, access: EnvironmentAccess, userId: string, given: UserPatch): Promise<UserView> {
  const env = access.environmentId;
  const patch = withCanonicalEmail(given);
  await audited(deps, access, async (t, record) => {
    const before = await users.lockUser(t, env, userId);
    if (!before) throw notFound("user");
    if (patch.email && patch.email.toLowerCase() !== before.email?.toLowerCase() && (await users.userExistsWithEmail(t, env, patch.email, userId)))
      throw EMAIL_TAKEN();
    if (patch.phoneNumber && patch.phoneNumber !== before.phoneNumber && (await users.userExistsWithPhone(t, env, patch.phoneNumber, userId)))
      throw PHONE_TAKEN();
    if (patch.externalUserId && patch.externalUserId !== before.externalUserId && (await users.userExistsWithExternalId(t, env, patch.externalUserId, userId)))
      throw EXTERNAL_TAKEN();
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const storeFields = await enforceAndStoreFields(t, env, userId, stateOf(before), stateOf({ ...before, ...defined }));
    const after = (await users.updateUser(t, env, userId, patch))!;
    await storeFields(userId);
    if (patch.email !== undefined && (patch.email ?? "").toLowerCase() !== (before.email ?? "").toLowerCase())
      await users.replaceContactCredential(t, env, userId, "email", patch.email);
    if (patch.phoneNumber !== undefined && patch.phoneNumber !== before.phoneNumber)
      await users.replaceContactCredential(t, env, userId, "phoneNumber", patch.phoneNumber);
    await record({ action: "user.updated", resourceType: "user", resourceId: userId, before: userSnapshot(before), after: userSnapshot(after) });
  }).catch(translateUniqueViolation);
  return getUser(deps, access, userId);
}

/** Soft-deletes a user: revokes its sessions and frees its unique values (e-mail, phone, ids, fields). */
export async function deleteUser(deps: Deps, access: EnvironmentAccess, userId: string): Promise<void> {
  const env = access.environmentId;
  const revoked = await audited(deps, access, async (t, record) => {
    const before = await users.lockUser(t, env, userId);
    if (!before) throw notFound("user");
    const sessions = (await users.softDeleteUser(t, env, userId)) ?? [];
    await customFields.clearUserValues(t, env, userId);
    // The user's wallets go with it (soft, like a wallet delete), so their addresses can be linked again.
    for (const w of await wallets.listUserWallets(t, env, userId)) {
      await wallets.softDeleteWallet(t, env, w.id);
      await record({ action: "wallet.deleted", resourceType: "wallet", resourceId: w.id, before: { userId, chain: w.chain, address: w.address } });
    }
    await record({ action: "user.deleted", resourceType: "user", resourceId: userId, before: userSnapshot(before) });
    return sessions;
  });
  await markSessionsRevoked(deps.store, revoked);
}

/** Revokes every live session of the user, in Postgres and (after commit) for every api process. */
export async function revokeUserSessions(deps: Deps, access: EnvironmentAccess, userId: string): Promise<number> {
  const env = access.environmentId;
  const revoked = await audited(deps, access, async (t, record) => {
    if (!(await users.lockUser(t, env, userId))) throw notFound("user");
    const sessions = await users.revokeUserSessions(t, env, userId);
    await record({ action: "user.sessions.revoked", resourceType: "user", resourceId: userId, after: { revokedSessions: sessions.length } });
    return sessions;
  });
  await markSessionsRevoked(deps.store, revoked);
  return revoked.length;
}

export async function revokeSession(deps: Deps, access: EnvironmentAccess, sessionId: string): Promise<users.SessionRecord> {
  return audited(deps, access, async (t, record) => {
    const s = await users.revokeSession(t, access.environmentId, sessionId);
    if (!s) throw notFound("session");
    const { userId, wasRevoked, ...session } = s;
    if (!wasRevoked)
      await record({ action: "user.session.revoked", resourceType: "session", resourceId: sessionId, after: { userId, revokedAt: session.revokedAt } });
    return session;
  }).then(async (session) => {
    await markSessionsRevoked(deps.store, [session]);
    return session;
  });
}

export async function getSession(deps: Deps, access: EnvironmentAccess, userId: string, sessionId: string): Promise<users.SessionRecord> {
  const s = await users.findSession(deps.db, access.environmentId, userId, sessionId);
  if (!s) throw notFound("session");
  return s;
}

/** The stored access token of an OAuth account; 404 when the account or its token is unknown. */
export async function getOauthAccessToken(deps: Deps, access: EnvironmentAccess, credentialId: string) {
  const c = await users.findOauthAccount(deps.db, access.environmentId, credentialId);
  if (!c) throw notFound("oauth account");
  if (!c.oauthAccessTokenSealed) throw new DomainError("not_found", "oauth_access_token_not_found", "no access token is stored for this OAuth account");
  return { accessToken: deps.sealer.open(c.oauthAccessTokenSealed, oauthTokenAad(c.id, "access")), expiresAt: c.oauthAccessTokenExpiresAt };
}
