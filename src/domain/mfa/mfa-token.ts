import { createHash, randomBytes } from "node:crypto";
import { DomainError } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import type { Deps } from "../deps.js";
import type { MfaCaller } from "./caller.js";
import type { SecondFactor } from "./lockout.js";

/** How long an mfaToken (proof of a fresh second factor, for operations that ask for one) stays usable. */
const MFA_TOKEN_TTL_SECONDS = 300;

const mfaTokenKey = (token: string) => `mfa:token:${createHash("sha256").update(token).digest("hex")}`;

/** What an mfaToken stands for: this session passed this factor just now. */
interface MfaTokenGrant {
  environmentId: string;
  userId: string;
  sessionId: string;
  factor: SecondFactor;
  singleUse: boolean;
}

/** A new mfaToken for a factor just passed; only its hash is stored, for 5 minutes. */
export async function issueMfaToken(store: EphemeralStore, grant: MfaTokenGrant): Promise<string> {
  const token = `mfa_${randomBytes(32).toString("base64url")}`;
  await store.set(mfaTokenKey(token), JSON.stringify(grant), MFA_TOKEN_TTL_SECONDS);
  return token;
}

const invalidMfaToken = () =>
  new DomainError("forbidden", "invalid_mfa_token", "this operation needs a fresh second factor: pass one with createMfaToken and send its mfaToken in x-mfa-auth-token");

/**
 * Checks an mfaToken (x-mfa-auth-token) for an operation that asks for a fresh second factor: it must have
 * been made by this session of this user in this environment and not be spent or expired. A single-use one
 * is spent here (taken from the store, so of two concurrent uses one passes).
 */
export async function redeemMfaToken(deps: Pick<Deps, "store">, caller: MfaCaller, token: string | null): Promise<void> {
  if (!token) throw invalidMfaToken();
  const key = mfaTokenKey(token);
  const raw = await deps.store.get(key);
  if (!raw) throw invalidMfaToken();
  const grant = JSON.parse(raw) as MfaTokenGrant;
  const { environmentId, userId, sessionId } = caller.principal;
  if (grant.environmentId !== environmentId || grant.userId !== userId || grant.sessionId !== sessionId) throw invalidMfaToken();
  if (grant.singleUse && (await deps.store.take(key)) === null) throw invalidMfaToken();
}

/**
 * Whether `token` is a live mfaToken of `userId` in the environment, made by any session of theirs that has
 * just passed their factor: the proof a merge or transfer of that user's credential asks for (taking their
 * credential is signing in as them). Read only: takeUserMfaToken spends it once the operation is sure.
 */
export async function isUserMfaToken(store: EphemeralStore, environmentId: string, userId: string, token: string): Promise<boolean> {
  const raw = await store.get(mfaTokenKey(token));
  return raw !== null && grantIsFor(raw, environmentId, userId);
}

/** Spends `userId`'s mfaToken (whatever its single-use flag): of two concurrent uses, one gets true. */
export async function takeUserMfaToken(store: EphemeralStore, environmentId: string, userId: string, token: string): Promise<boolean> {
  const raw = await store.take(mfaTokenKey(token));
  return raw !== null && grantIsFor(raw, environmentId, userId);
}

function grantIsFor(raw: string, environmentId: string, userId: string): boolean {
  const grant = JSON.parse(raw) as MfaTokenGrant;
  return grant.environmentId === environmentId && grant.userId === userId;
}
