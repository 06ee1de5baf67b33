import { DomainError, notFound, unprocessable } from "../../errors.js";
import * as customFields from "../../db/repositories/custom-fields.js";
import * as mfa from "../../db/repositories/mfa.js";
import * as repo from "../../db/repositories/own-account.js";
import { findEnvironmentRecord } from "../../db/repositories/projects.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import { uniqueKey } from "../custom-fields/rules.js";
import type { Deps } from "../deps.js";
import { effectiveSettings } from "../environments/settings.js";
import { markSessionsRevoked } from "../sessions/revocation.js";
import { endUserAccess, renewSession } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { createEmailVerification, createSmsVerification } from "../verifications/service.js";
import { phoneInputOf } from "../verifications/phone.js";
import { getUser, updateUser, userSnapshot, type UserPatch, type UserView } from "../users/service.js";

/** Who calls: the session's user in the environment the path names, and the request (for the audit trail). */
export interface Caller {
  env: PublicEnvironment;
  principal: EndUserPrincipal;
  requestId: string;
}

/** The profile fields an end user may set on themselves, as the client sends them (absent: unchanged). */
export type SelfUpdate = Partial<Record<TextField, string>> & {
  policiesConsent?: boolean;
  /** Values of the environment's custom fields, by name. */
  metadata?: Record<string, unknown>;
  /** The user confirms keeping the recovery codes last shown to them (not a profile field). */
  mfaBackupCodeAcknowledgement?: "complete";
};

type TextField = "email" | "phoneNumber" | "alias" | "firstName" | "lastName" | "username" | "jobTitle" | "country" | "team" | "tShirtSize";

export type NextView = "done" | "verify-email" | "verify-sms";

const accessOf = (c: Caller) => endUserAccess(c.env, c.principal.userId, c.requestId);

/** The session outlived its user (deleted meanwhile): the token no longer stands for anyone. */
const goneUser = () => new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");

export async function getOwnUser(deps: Deps, c: Caller): Promise<UserView> {
  try {
    return await getUser(deps, accessOf(c), c.principal.userId);
  } catch (err) {
    if (err instanceof DomainError && err.kind === "not_found") throw goneUser();
    throw err;
  }
}

const notCollected = (field: string) =>
  unprocessable("user_field_not_collected", `${field} is not a profile field this environment collects`, { field });

/**
 * Which of the given fields the environment lets end users set: standard fields enabled in
 * sdk.collectUserData, metadata keys that are enabled custom fields. Anything else is refused (422) rather
 * than silently dropped, so a client learns at once that its form and the environment disagree.
 */
async function checkCollected(deps: Pick<Deps, "db">, environmentId: string, update: SelfUpdate): Promise<void> {
  const record = await findEnvironmentRecord(deps.db, environmentId);
  if (!record) throw notFound("environment");
  const collect = (effectiveSettings(record.settings).sdk.collectUserData ?? {}) as Record<string, { enabled?: boolean }>;
  for (const [field, value] of Object.entries(update)) {
    if (value === undefined || field === "metadata") continue;
    if (!collect[field]?.enabled) throw notCollected(field);
  }
  if (!update.metadata) return;
  const fields = await customFields.allCustomFields(deps.db, environmentId);
  const custom = new Set(fields.filter((f) => f.enabled && f.type === "custom").map((f) => f.name));
  for (const key of Object.keys(update.metadata)) if (!custom.has(key)) throw notCollected(`metadata.${key}`);
}

/** The code a changed email or phone number was sent, for the client to redeem (nothing for other changes). */
type StartedVerification =
  | { channel: "email"; verificationId: string; email: string }
  | { channel: "sms"; verificationId: string; phone: { phoneNumber: string; phoneCountryCode: string; isoCountryCode: string } };

/**
 * Changes the caller's profile and answers new tokens of the same session. A new email or phone number is a
 * credential: it is checked for conflicts (422 email_already_exists / phone_number_already_exists) and not
 * stored; a code is sent to it through the codes capability and next_view asks for it (redeeming it adds
 * the address or number to the user). The code is sent before anything is written, so a refused send
 * (429) changes nothing. Other fields go through the management update (uniqueness, custom-field rules,
 * audit user.updated and its event); custom-field values are merged into the metadata so an end user never
 * erases keys the environment's own back end keeps there.
 */
export async function updateSelf(deps: Deps, c: Caller, { mfaBackupCodeAcknowledgement, ...update }: SelfUpdate) {
  const { environmentId, userId } = c.principal;
  await checkCollected(deps, environmentId, update);
  const current = (await getOwnUser(deps, c)).aggregate.user;

  const newEmail = update.email !== undefined && update.email.toLowerCase() !== (current.email ?? "").toLowerCase();
  const newPhone = update.phoneNumber !== undefined && update.phoneNumber !== (current.phoneNumber ?? "");
  if ((newEmail && update.email === "") || (newPhone && update.phoneNumber === ""))
    throw unprocessable("verified_field_cannot_be_cleared", "a verified email or phone number is a way to sign in: it is replaced by verifying another, not cleared");
  if (newEmail && newPhone) throw unprocessable("one_verification_at_a_time", "change the email and the phone number in two updates: each is verified on its own");
  if (newEmail && (await users.userExistsWithEmail(deps.db, environmentId, update.email!, userId)))
    throw unprocessable("email_already_exists", "a user with this email already exists in this environment");
  if (newPhone && (await users.userExistsWithPhone(deps.db, environmentId, update.phoneNumber!, userId)))
    throw unprocessable("phone_number_already_exists", "a user with this phone number already exists in this environment");

  let verification: StartedVerification | undefined;
  if (newEmail) verification = { channel: "email", ...(await createEmailVerification(deps, c.env, update.email!)) };
  if (newPhone) verification = { channel: "sms", ...(await createSmsVerification(deps, c.env, phoneInputOf(update.phoneNumber!))) };

  const { email: _email, phoneNumber: _phone, metadata, ...profile } = update;
  const patch: UserPatch = { ...Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, v === "" ? null : v])) };
  if (metadata) patch.metadata = { ...(current.metadata ?? {}), ...metadata };
  if (Object.values(patch).some((v) => v !== undefined)) await updateUser(deps, accessOf(c), userId, patch);
  if (mfaBackupCodeAcknowledgement) await acknowledgeRecoveryCodes(deps, c);

  const { tokens, user } = await renewSession(deps, c.principal);
  const nextView: NextView = newEmail ? "verify-email" : newPhone ? "verify-sms" : "done";
  return { tokens, user, nextView, verification };
}

/** Recovery codes waiting for the user's confirmation are confirmed (audited); nothing waiting: no change. */
async function acknowledgeRecoveryCodes(deps: Deps, c: Caller): Promise<void> {
  await audited(deps, accessOf(c), async (t, record) => {
    if (!(await mfa.acknowledgeRecoveryCodes(t, c.env.environmentId, c.principal.userId))) return;
    await record({ action: "user.mfa.recovery_codes_acknowledged", resourceType: "user", resourceId: c.principal.userId, after: { mfaBackupCodeAcknowledgement: "complete" } });
  });
}

/**
 * Deletes the caller for good, in one transaction with its audit rows (user.deleted and a wallet.deleted
 * per wallet, with their events): the row goes and everything hanging on it with it. Its live sessions are
 * revoked first and, once committed, marked revoked in the store, so no token of the user works anywhere.
 */
export async function hardDeleteSelf(deps: Deps, c: Caller): Promise<void> {
  const { environmentId: env, userId } = c.principal;
  const revoked = await audited(deps, accessOf(c), async (t, record) => {
    const before = await users.lockUser(t, env, userId);
    if (!before) throw goneUser();
    const sessions = await users.revokeUserSessions(t, env, userId);
    const owned = await wallets.listUserWallets(t, env, userId);
    for (const w of owned)
      await record({ action: "wallet.deleted", resourceType: "wallet", resourceId: w.id, before: { userId, chain: w.chain, address: w.address } });
    await record({ action: "user.deleted", resourceType: "user", resourceId: userId, before: { ...userSnapshot(before), hardDeleted: true } });
    await repo.hardDeleteUser(t, env, userId);
    return sessions;
  });
  // The session the caller used is among them, unless it was revoked meanwhile: mark it anyway.
  await markSessionsRevoked(deps.store, [...revoked, { id: c.principal.sessionId, expiresAt: new Date(c.principal.expiresAt * 1000) }]);
}

/**
 * Whether `value` of a unique field is free for the caller: email and phone number (credentials, always
 * unique) against the environment's live users; a field the environment declares unique (a standard field
 * such as username, or a custom field) against its stored values, compared as it compares them. The
 * caller's own value is free. A field that is not unique has nothing to check against (422).
 */
export async function isFieldValueAvailable(deps: Pick<Deps, "db">, c: Caller, field: string, value: string): Promise<boolean> {
  const { environmentId: env, userId } = c.principal;
  if (field === "email") return !(await users.userExistsWithEmail(deps.db, env, value, userId));
  if (field === "phoneNumber") return !(await users.userExistsWithPhone(deps.db, env, value, userId));
  const unique = (await customFields.allCustomFields(deps.db, env)).find((f) => f.name === field && f.enabled && f.unique);
  if (!unique) throw unprocessable("field_not_checkable", `${field} is not a unique field of this environment`, { field });
  return !(await customFields.uniqueValueTaken(deps.db, env, unique.id, uniqueKey(value), userId));
}

/** Marks one of the caller's own wallets as selected (audited) and answers new tokens that show it. */
export async function selectWallet(deps: Deps, c: Caller, walletId: string) {
  const { environmentId: env, userId } = c.principal;
  await audited(deps, accessOf(c), async (t, record) => {
    const selected = await repo.selectUserWallet(t, env, userId, walletId);
    // Another user's wallet, a deleted one, or none: the same answer, so ids of others cannot be probed.
    if (!selected) throw notFound("wallet");
    await record({ action: "wallet.selected", resourceType: "wallet", resourceId: selected.id, after: { userId, chain: selected.chain, address: selected.address } });
  });
  return renewSession(deps, c.principal);
}
