import { DomainError, notFound, unprocessable } from "../../errors.js";
import * as customFields from "../../db/repositories/custom-fields.js";
import * as mfa from "../../db/repositories/mfa.js";
import * as repo from "../../db/repositories/own-account.js";
import { findEnvironmentRecord } from "../../db/repositories/projects.js";
import { findUserAggregate } from "../../db/repositories/user-aggregate.js";
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
import { canonicalEmail, normaliseEmail } from "../verifications/email.js";
import { normalisePhone, phoneInputOf } from "../verifications/phone.js";
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
 * credential and is treated as at sign-up: it is not stored, and whether another user has it is not told
 * here (that would let any session ask who has an account): a code is sent to it through the codes
 * capability, the answer is the same whether it is taken or free, and next_view asks for the code.
 * Redeeming it adds the address or number to the user, or refuses it then (422
 * credential_owned_by_another_user) once the caller has proven the mailbox or phone. The change is
 * remembered as the caller's pending change (see isFieldValueAvailable). The code is sent before anything
 * is written, so a refused send (429) changes nothing. Other fields go through the management update
 * (uniqueness, custom-field rules, audit user.updated and its event); custom-field values are merged into
 * the metadata so an end user never erases keys the environment's own back end keeps there.
 */
export async function updateSelf(deps: Deps, c: Caller, { mfaBackupCodeAcknowledgement, ...update }: SelfUpdate) {
  const { environmentId, userId } = c.principal;
  await checkCollected(deps, environmentId, update);
  const current = (await getOwnUser(deps, c)).aggregate.user;

  const email = update.email ? normaliseEmail(update.email) : update.email;
  const phone = update.phoneNumber ? normalisePhone(phoneInputOf(update.phoneNumber)).e164 : update.phoneNumber;
  const newEmail = email !== undefined && email !== (current.email ? (canonicalEmail(current.email) ?? current.email.toLowerCase()) : "");
  const newPhone = phone !== undefined && phone !== (current.phoneNumber ?? "");
  if ((newEmail && email === "") || (newPhone && phone === ""))
    throw unprocessable("verified_field_cannot_be_cleared", "a verified email or phone number is a way to sign in: it is replaced by verifying another, not cleared");
  if (newEmail && newPhone) throw unprocessable("one_verification_at_a_time", "change the email and the phone number in two updates: each is verified on its own");

  let verification: StartedVerification | undefined;
  if (newEmail) verification = { channel: "email", ...(await createEmailVerification(deps, c.env, email!)) };
  if (newPhone) verification = { channel: "sms", ...(await createSmsVerification(deps, c.env, phoneInputOf(phone!))) };
  if (newEmail) await rememberPendingChange(deps, c, "email", email!);
  if (newPhone) await rememberPendingChange(deps, c, "phoneNumber", phone!);

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

type ContactField = "email" | "phoneNumber";

/** How long a started change stays the caller's pending one: as long as its verification can live. */
const PENDING_CHANGE_SECONDS = 3600;
const pendingChangeKey = (c: Caller, field: ContactField) => `own-account:pending-change:${c.principal.environmentId}:${c.principal.userId}:${field}`;

async function rememberPendingChange(deps: Pick<Deps, "store">, c: Caller, field: ContactField, value: string): Promise<void> {
  await deps.store.set(pendingChangeKey(c, field), value, PENDING_CHANGE_SECONDS);
}

/**
 * Whether `value` of a unique field is free for the caller. A field the environment declares unique (a
 * standard field such as username, or a custom field) is checked against its stored values, compared as it
 * compares them: choosing a unique handle means learning which are taken. An email or phone number is a
 * way to sign in, and whether another user has one is told only to whoever proves it (by redeeming its
 * code): the check answers only for the caller's own address or number and for the change they are in the
 * middle of verifying (available: the code decides), and refuses any other value (422
 * field_not_checkable), taken or free alike. The caller's own value is free. A field that is not unique has
 * nothing to check against (422).
 */
export async function isFieldValueAvailable(deps: Pick<Deps, "db" | "store">, c: Caller, field: string, value: string): Promise<boolean> {
  const { environmentId: env, userId } = c.principal;
  if (field === "email" || field === "phoneNumber") return isOwnContact(deps, c, field, value);
  const unique = (await customFields.allCustomFields(deps.db, env)).find((f) => f.name === field && f.enabled && f.unique);
  if (!unique) throw unprocessable("field_not_checkable", `${field} is not a unique field of this environment`, { field });
  return !(await customFields.uniqueValueTaken(deps.db, env, unique.id, uniqueKey(value), userId));
}

const notOwnContact = (field: ContactField) =>
  unprocessable(
    "field_not_checkable",
    `whether ${field === "email" ? "an email address" : "a phone number"} belongs to someone is told only to whoever redeems its code: ask about your own or the one you are verifying`,
    { field },
  );

/** The caller's own (verified or profile) value, or their pending change: true; anything else: 422. */
async function isOwnContact(deps: Pick<Deps, "db" | "store">, c: Caller, field: ContactField, value: string): Promise<boolean> {
  const wanted = field === "email" ? normaliseEmail(value, "filter.value") : normalisePhone(phoneInputOf(value)).e164;
  const user = await findUserAggregate(deps.db, c.principal.environmentId, c.principal.userId);
  if (!user) throw goneUser();
  const own =
    field === "email"
      ? [user.user.email, ...user.credentials.filter((x) => x.format === "email").map((x) => x.email)].flatMap((e) => (e ? [canonicalEmail(e)] : []))
      : [user.user.phoneNumber];
  if (own.includes(wanted) || (await deps.store.get(pendingChangeKey(c, field))) === wanted) return true;
  throw notOwnContact(field);
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
