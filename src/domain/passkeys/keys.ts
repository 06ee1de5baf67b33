import { randomUUID } from "node:crypto";
import * as repo from "../../db/repositories/passkeys.js";
import * as users from "../../db/repositories/users.js";
import { DomainError, unprocessable } from "../../errors.js";
import type { Queryable } from "../../db/db.js";
import { audited, type RecordChange } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess, type ClientMeta } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { RelyingParty } from "./relying-party.js";
import { counterAdvanced, verifyAssertion, type AuthenticationResponseJSON, type RegisteredKey, type WebAuthnUser } from "./webauthn.js";

/** What events and audit rows say of a passkey: never its public key (not secret, but of no use there). */
export const passkeySnapshot = (p: repo.PasskeyRecord) => ({
  userId: p.userId,
  passkeyId: p.id,
  credentialId: p.credentialId,
  alias: p.alias,
  origin: p.origin,
  aaguid: p.aaguid,
  attestationFormat: p.attestationFormat,
  backedUp: p.backedUp,
  mfaDeviceId: p.mfaDeviceId,
});

/** How the user is named to their authenticator: their e-mail, username or phone; the id when they have none. */
export async function webAuthnUserOf(q: Queryable, environmentId: string, userId: string): Promise<WebAuthnUser> {
  const u = await users.findUser(q, environmentId, userId);
  if (!u) throw invalidSession();
  const name = u.email ?? u.username ?? u.phoneNumber ?? userId;
  const full = [u.firstName, u.lastName].filter(Boolean).join(" ");
  return { id: userId, name, displayName: full || name };
}

/**
 * Stores a key a registration proved, for the caller's user (locked: a user deleted meanwhile gets none),
 * in the caller's audited transaction. An authenticator already registered in the environment (by anyone):
 * 422 passkey_already_registered.
 */
export async function storeKey(
  t: Queryable,
  record: RecordChange,
  env: PublicEnvironment,
  userId: string,
  key: RegisteredKey,
  where: { rp: RelyingParty; meta: ClientMeta; mfaDeviceId: string | null },
): Promise<repo.PasskeyRecord> {
  if (!(await users.lockUser(t, env.environmentId, userId))) throw invalidSession();
  if (await repo.findPasskeyByCredentialId(t, env.environmentId, key.credentialId)) throw alreadyRegistered();
  const stored = await t
    .tx((sp) =>
      repo.insertPasskey(sp, env.environmentId, userId, {
        id: randomUUID(),
        mfaDeviceId: where.mfaDeviceId,
        ...key,
        alias: null,
        origin: where.rp.origin,
        userAgent: where.meta.userAgent?.slice(0, 512) ?? null,
      }),
    )
    .catch((err: { code?: string }) => {
      // Two registrations of one authenticator at once: the unique index lets one in.
      throw err.code === "23505" ? alreadyRegistered() : err;
    });
  await record({ action: "user.passkey.created", resourceType: "passkey", resourceId: stored.id, after: passkeySnapshot(stored) });
  return stored;
}

/**
 * Checks an assertion against a stored key and records its use. The counter must grow (unless the
 * authenticator keeps none); a valid signature with a counter that did not, is refused and audited
 * (user.passkey.counter_regressed): a copy of the key may be in use. Of two assertions checked against one
 * stored counter only the first is recorded.
 */
export async function useKey(
  deps: Deps,
  env: PublicEnvironment,
  stored: repo.PasskeyRecord,
  response: AuthenticationResponseJSON,
  challenge: string,
  rp: RelyingParty,
  meta: ClientMeta,
): Promise<void> {
  const seen = await verifyAssertion(response, challenge, rp, stored);
  if (counterAdvanced(stored.signCount, seen.signCount) && (await repo.recordPasskeyUse(deps.db, env.environmentId, stored.id, seen))) return;
  await audited(deps, endUserAccess(env, stored.userId, meta.requestId), (_t, record) =>
    record({
      action: "user.passkey.counter_regressed",
      resourceType: "passkey",
      resourceId: stored.id,
      after: { userId: stored.userId, passkeyId: stored.id, storedCount: stored.signCount, receivedCount: seen.signCount, ipAddress: meta.ipAddress },
    }),
  );
  throw unprocessable("passkey_counter_regressed", "this passkey's signature counter went back: a copy of it may be in use; it was refused and the attempt recorded");
}

const alreadyRegistered = () => unprocessable("passkey_already_registered", "this authenticator is already registered in this environment");
const invalidSession = () => new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");
