import type { Queryable } from "../../db/db.js";
import { openSessionAndFindUser, type SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import * as signIn from "../../db/repositories/sign-in.js";
import * as users from "../../db/repositories/users.js";
import { DomainError, unprocessable } from "../../errors.js";
import { audited, changeRows, type Change } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession, sessionToOpen, signOpenedSession, type ClientMeta, type SessionTokens } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { userSnapshot } from "../users/service.js";
import { attachCredential, attachedChange, findOwner, firstFactorOf, type ProvenCredential } from "./credentials.js";
import { owesSecondFactor } from "../mfa/factors.js";
import { mfaRequired, awaitsSecondFactor } from "../sessions/tokens.js";
import { judgeOtherUserSignIn } from "./other-user.js";
import { rememberPendingMerge } from "./pending-merge.js";
import { checkSignInPolicy } from "./policy.js";
import { satisfiedGates } from "../gates/enforcement.js";

/** What every sign-in method answers: the user, whether this sign-in created them, the session's tokens. */
export interface SignInResult {
  user: SignedInUserRecord;
  newUser: boolean;
  tokens: SessionTokens;
}

/**
 * The one sign-in pipeline: every method (wallet signature, e-mail or SMS code, OAuth and chat accounts,
 * external JWT, passkey) proves a credential and hands it here. The environment's policy decides (methods,
 * allowlists, e-mail domains, token gates read from the chains); the credential's owner signs in, or a new
 * user is created with it; a session is opened. User, credential, session, audit rows and events
 * (user.created, wallet.linked / verified_credential.created, user.session.created) commit together.
 *
 * The first sign-ins of one new credential may arrive together (a wallet app retrying, two tabs): each
 * tries to create the user, the credential's unique index lets one commit, and the others' transactions
 * roll back whole. Those run again, find the winner's user and sign in as that user: a race is never the
 * client's problem.
 */
export async function signInWith(deps: Deps, env: PublicEnvironment, credential: ProvenCredential, meta: ClientMeta): Promise<SignInResult> {
  const result = await retryingRaces(() => signInOnce(deps, env, credential, meta));
  // Reported once committed: a sign-in that lost a race and ran again opened one session, not two.
  deps.observer.sessionIssued(credential.kind, awaitsSecondFactor(result.tokens.scope));
  return result;
}

async function signInOnce(deps: Deps, env: PublicEnvironment, credential: ProvenCredential, meta: ClientMeta): Promise<SignInResult> {
  const environmentId = env.environmentId;
  const owner = await findOwner(deps.db, environmentId, credential);
  // A passkey only ever signs in the user it was registered to: a gone user is not signed up again.
  if (!owner && credential.kind === "passkey") throw new DomainError("unauthenticated", "invalid_credential", "this passkey's user no longer exists");
  const subject = { proven: credential.kind === "wallet" ? credential : null, userId: owner?.userId ?? null };
  const scope = await checkSignInPolicy(deps.db, environmentId, credential, {
    newUser: !owner,
    judgeGates: (gates) => satisfiedGates(deps, env, gates, subject),
  });
  const policy = await deps.sessionKeys.policy(environmentId);
  const access = endUserAccess(env, owner?.userId ?? "", meta.requestId);

  /**
   * The session for the user, stored with the visit, the sign-in's audit rows and events and the read of the
   * user in one statement (test/e2e/hot-path-statements.test.ts counts a sign-in's statements), then signed.
   */
  const open = async (q: Queryable, userId: string, credentialId: string | null, changes: Change[]) => {
    // MFA on: a user who must pass a second factor gets a session that only the MFA operations accept.
    const secondFactorPending = await owesSecondFactor(q, policy.mfa, environmentId, userId, firstFactorOf(credential));
    // The session keeps which credential signed it in: no second factor may repeat it.
    const firstFactor = { kind: credential.kind, id: credential.kind === "passkey" ? credential.passkeyId : credentialId };
    const session = sessionToOpen(deps, policy, meta, scope, { secondFactorPending, firstFactor });
    const recorded = [
      ...changes,
      {
        action: "user.session.created",
        resourceType: "session",
        resourceId: session.row.id,
        after: { userId, method: credential.kind, secondFactorPending },
      },
    ];
    const user = await openSessionAndFindUser(q, environmentId, userId, { credentialId }, session.row, changeRows(access, recorded));
    if (!user) throw new DomainError("unauthenticated", "invalid_credential", "this credential's user no longer exists");
    return { user, session };
  };

  // A returning user whose credential is stored: one statement, no transaction.
  if (owner && (owner.credentialId || owner.attached)) {
    const { user, session } = await open(deps.db, owner.userId, owner.credentialId ?? null, []);
    return { user, newUser: false, tokens: await signOpenedSession(deps, user, session) };
  }
  // A new user, or one known by the profile's e-mail / phone only (a user created by the management API):
  // the user and the credential are written with the session, in one transaction.
  const opened = await deps.db.tx(async (t) => {
    const changes: Change[] = [];
    let userId = owner?.userId;
    if (!userId) {
      const created = await users.insertUser(t, environmentId, {});
      userId = created.id;
      changes.push({ action: "user.created", resourceType: "user", resourceId: userId, after: { ...userSnapshot(created), signedUpWith: credential.kind } });
    }
    const attached = await attachCredential(t, environmentId, userId, credential);
    changes.push(attachedChange(credential, userId, attached.resourceId));
    return open(t, userId, attached.credentialId, changes);
  });
  return { user: opened.user, newUser: !owner, tokens: await signOpenedSession(deps, opened.user, opened.session) };
}

/**
 * Adds a proven credential to the signed-in user (a full session: one still owing its factor is refused).
 * Already theirs: nothing changes. Another user's: proving it is signing in as that user, so their sign-in
 * policy decides first (a refusal answers as that sign-in would, and nothing is remembered); then 422
 * `credential_owned_by_another_user`, saying whether a sign-in of theirs owes a second factor
 * (`otherUserSecondFactorRequired`: a transfer or merge then needs an mfaToken of theirs), and the proof is
 * remembered for the session (10 minutes) so that the client may then transfer the credential or merge the
 * two users (verifyTransfer, verifyMergeUsers, mergeUsers) without proving it again. Answers new tokens for
 * the same session.
 */
export async function linkCredential(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  credential: ProvenCredential,
  meta: ClientMeta,
): Promise<{ user: SignedInUserRecord; tokens: SessionTokens }> {
  if (awaitsSecondFactor(principal.scope)) throw mfaRequired("pass your second factor before linking a credential");
  // A link that raced another of the same credential runs again: it then finds the credential held.
  return retryingRaces(() => linkOnce(deps, env, principal, credential, meta));
}

async function linkOnce(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  credential: ProvenCredential,
  meta: ClientMeta,
): Promise<{ user: SignedInUserRecord; tokens: SessionTokens }> {
  const environmentId = env.environmentId;
  const owner = await findOwner(deps.db, environmentId, credential);
  if (owner && owner.userId !== principal.userId) {
    const { secondFactorDue: otherUserSecondFactorRequired } = await judgeOtherUserSignIn(deps, environmentId, owner.userId, credential);
    await rememberPendingMerge(deps.store, principal, { credential, otherUserId: owner.userId });
    throw unprocessable("credential_owned_by_another_user", "this credential belongs to another user: transfer it or merge the two users", {
      otherUserId: owner.userId,
      transfer: credential.kind === "wallet",
      merge: true,
      otherUserSecondFactorRequired,
    });
  }
  await checkSignInPolicy(deps.db, environmentId, credential, { newUser: false });
  if (!owner || (!owner.credentialId && !owner.attached)) {
    await audited(deps, endUserAccess(env, principal.userId, meta.requestId), async (t, record) => {
      if (!(await users.lockUser(t, environmentId, principal.userId))) throw new DomainError("unauthenticated", "invalid_session", "the session's user no longer exists");
      const attached = await attachCredential(t, environmentId, principal.userId, credential);
      await signIn.recordUserVisit(t, environmentId, principal.userId, attached.credentialId);
      await record(attachedChange(credential, principal.userId, attached.resourceId));
    });
  }
  return renewSession(deps, principal).then(({ tokens, user }) => ({ tokens, user }));
}

/** A sign-in or link that lost a race to attach one new credential runs again, this many times at most. */
const RACE_ATTEMPTS = 3;

/**
 * Runs `work` again when it lost a race for a credential's unique index (the winner has committed by then:
 * an insert waits for the transaction that holds the key); 409 `credential_race` only if it keeps losing.
 */
async function retryingRaces<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isCredentialRace(err)) throw err;
      if (attempt >= RACE_ATTEMPTS) throw new DomainError("conflict", "credential_race", "this credential was just attached by another request; try again");
    }
  }
}

function isCredentialRace(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e.code === "23505" && /wallets_environment_address_key|verified_credentials_(email|phone|oauth)_key|users_environment_(email|phone|external_id)_key/.test(e.constraint ?? "");
}
