import * as customFields from "../../db/repositories/custom-fields.js";
import * as users from "../../db/repositories/users.js";
import * as repo from "../../db/repositories/wallet-sign-in.js";
import { DomainError, badRequest, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { markSessionsRevoked } from "../sessions/revocation.js";
import { endUserAccess, renewSession } from "../sessions/service.js";
import { awaitsSecondFactor, mfaRequired } from "../sessions/tokens.js";
import { authorizeTakingOtherUsersCredential } from "../sign-in/other-user.js";
import { rememberPendingMerge, takePendingMerge, type PendingMerge } from "../sign-in/pending-merge.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { userSnapshot } from "../users/service.js";

/** Which user's value of a profile field the merged user keeps (the client's MergeUserConflictResolution). */
export interface MergeResolution {
  userId: string;
  fieldKey: string;
  type: string;
}

/** The profile fields a merge reconciles; a field only one of the two users has set simply carries over. */
const MERGED_FIELDS = [
  "email", "phoneNumber", "alias", "firstName", "lastName", "username", "jobTitle", "country", "team", "tShirtSize", "externalUserId",
] as const;

const noPendingMerge = () =>
  unprocessable(
    "no_pending_merge",
    "there is no merge to do for this session: link the other user's credential first (verifyLink, or the e-mail / SMS verification)",
  );

/**
 * Merges the other user of the session's pending merge (remembered when a link found the credential owned
 * by them, so its proof is already checked) into the signed-in user: all of their wallets and credentials
 * move over (remembering who held them), profile fields both have set are resolved by `resolutions`
 * (null: none given, and then any such field answers 422 merge_conflicts naming them), the other user is
 * soft-deleted and their sessions revoked everywhere. The pending merge is used up only by a merge that
 * happens: after a refusal the client may resolve and try again.
 *
 * Merging is signing in as the other user: the caller's own session must be a full one, and the other
 * user's sign-in policy and second factor are checked again now (settings and devices may have changed
 * since the link): `mfaToken` is an mfaToken of the other user's, spent by the merge that happens.
 */
export async function mergePendingUser(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  resolutions: MergeResolution[] | null,
  requestId: string,
  mfaToken: string | null = null,
) {
  if (awaitsSecondFactor(principal.scope)) throw mfaRequired("pass your second factor before merging another user in");
  const pending = await takePendingMerge(deps.store, principal);
  if (!pending) throw noPendingMerge();
  let revoked: { id: string; expiresAt: Date | null }[];
  try {
    if (pending.otherUserId === principal.userId) throw noPendingMerge();
    const spendProof = await authorizeTakingOtherUsersCredential(deps, env.environmentId, pending.otherUserId, pending.credential, mfaToken);
    revoked = await merge(deps, env, principal, pending, resolutions, requestId, spendProof);
  } catch (err) {
    // Nothing was merged (the transaction rolled back): the session keeps its pending merge for a retry.
    if (!(err instanceof DomainError && err.code === "no_pending_merge")) await rememberPendingMerge(deps.store, principal, pending);
    throw err;
  }
  await markSessionsRevoked(deps.store, revoked);
  return renewSession(deps, principal);
}

async function merge(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  pending: PendingMerge,
  resolutions: MergeResolution[] | null,
  requestId: string,
  spendProof: () => Promise<void>,
) {
  const environmentId = env.environmentId;
  const a = principal.userId;
  const b = pending.otherUserId;
  const winners = resolutions && checkResolutions(resolutions, a, b);
  return audited(deps, endUserAccess(env, a, requestId), async (t, record) => {
    // Both users locked in one order (by id): two merges of the same pair cannot deadlock.
    const locked = new Map<string, users.UserRecord | null>();
    for (const id of [a, b].sort()) locked.set(id, await users.lockUser(t, environmentId, id));
    const before = locked.get(a);
    const other = locked.get(b);
    if (!before) throw new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");
    if (!other) throw noPendingMerge();
    const conflicts = MERGED_FIELDS.filter((f) => differ(f, before[f], other[f]));
    const unresolved = conflicts.filter((f) => !winners?.has(f));
    if (unresolved.length > 0)
      throw unprocessable("merge_conflicts", `both users have set ${unresolved.join(", ")}: say whose value to keep (verifyMergeUsers)`, {
        conflicts: unresolved.map((f) => ({ fieldKey: f, type: "standard", values: { [a]: before[f], [b]: other[f] } })),
      });
    const moved = await repo.moveAllCredentials(t, environmentId, b, a);
    await customFields.clearUserValues(t, environmentId, b);
    // Deleting the other user first frees their unique profile values (e-mail, phone, external id) for A.
    const sessions = (await users.softDeleteUser(t, environmentId, b)) ?? [];
    const patch: users.UserProfile = {};
    for (const f of MERGED_FIELDS) {
      const keep = conflicts.includes(f) ? (winners!.get(f) === b ? other[f] : before[f]) : (before[f] ?? other[f]);
      if (keep !== before[f]) patch[f] = keep;
    }
    const after = Object.keys(patch).length > 0 ? (await users.updateUser(t, environmentId, a, patch))! : before;
    const merged = { mergedUserId: b, movedWalletIds: moved.wallets.map((w) => w.id), movedCredentialIds: moved.credentialIds };
    await record({ action: "user.updated", resourceType: "user", resourceId: a, before: userSnapshot(before), after: { ...userSnapshot(after), ...merged } });
    await record({ action: "user.deleted", resourceType: "user", resourceId: b, before: userSnapshot(other), after: { mergedInto: a } });
    // Last, once nothing else can refuse: the other user's proof is spent by the merge that commits.
    await spendProof();
    return sessions;
  });
}

/** Resolutions must name one of the two users and a field a merge reconciles; custom fields are not merged. */
function checkResolutions(resolutions: MergeResolution[], a: string, b: string): Map<string, string> {
  const winners = new Map<string, string>();
  for (const r of resolutions) {
    if (r.type !== "standard") throw badRequest("invalid_resolution", `custom field ${r.fieldKey} is not merged: the signed-in user's custom fields are kept`);
    if (!(MERGED_FIELDS as readonly string[]).includes(r.fieldKey))
      throw badRequest("invalid_resolution", `${r.fieldKey} is not a profile field a merge resolves (one of ${MERGED_FIELDS.join(", ")})`);
    if (r.userId !== a && r.userId !== b) throw badRequest("invalid_resolution", "a resolution's userId must be one of the two users being merged");
    winners.set(r.fieldKey, r.userId);
  }
  return winners;
}

/** Both set and not the same value (e-mail addresses compare without case, as everywhere). */
function differ(field: string, x: string | null | undefined, y: string | null | undefined): boolean {
  if (!x || !y) return false;
  return field === "email" ? x.toLowerCase() !== y.toLowerCase() : x !== y;
}
