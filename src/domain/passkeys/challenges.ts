import { randomBytes } from "node:crypto";
import { unprocessable } from "../../errors.js";
import type { EphemeralStore } from "../../store/store.js";
import type { RelyingParty } from "./relying-party.js";

/** How long a WebAuthn challenge waits for its answer (also the timeout the options tell the browser). */
export const CHALLENGE_TTL_SECONDS = 300;

/** What a challenge was issued for: each ceremony accepts only its own. */
export type CeremonyPurpose = "register" | "sign-in" | "authenticate" | "mfa-register";

/**
 * A challenge as the store keeps it: its purpose, the relying party it was issued for, and, for a
 * signed-in caller, the user and session it is bound to (another session cannot answer it). An MFA
 * registration also names the device id it announced.
 */
export interface Challenge {
  purpose: CeremonyPurpose;
  rp: RelyingParty;
  userId?: string;
  sessionId?: string;
  deviceId?: string;
}

const challengeKey = (environmentId: string, challenge: string) => `passkeys:challenge:${environmentId}:${challenge}`;
const CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes (base64url), kept 5 minutes under the environment: unknown to every other environment. */
export async function issueChallenge(store: EphemeralStore, environmentId: string, c: Challenge): Promise<string> {
  const challenge = randomBytes(32).toString("base64url");
  await store.set(challengeKey(environmentId, challenge), JSON.stringify(c), CHALLENGE_TTL_SECONDS);
  return challenge;
}

/**
 * The challenge a client's answer signed (read from its clientDataJSON), used up at once (read and
 * deleted atomically: of two answers to one challenge only one gets it) and checked to belong to this
 * ceremony, relying party and caller. Whatever then fails, the challenge is spent.
 */
export async function takeChallenge(
  store: EphemeralStore,
  environmentId: string,
  clientDataJSON: string,
  expected: { purpose: CeremonyPurpose; origin: string; userId?: string; sessionId?: string },
): Promise<{ challenge: string; record: Challenge }> {
  const challenge = challengeOf(clientDataJSON);
  const raw = challenge ? await store.take(challengeKey(environmentId, challenge)) : null;
  if (!challenge || !raw) throw invalidChallenge();
  const record = JSON.parse(raw) as Challenge;
  if (
    record.purpose !== expected.purpose ||
    record.rp.origin !== expected.origin ||
    (record.userId ?? "") !== (expected.userId ?? "") ||
    (record.sessionId ?? "") !== (expected.sessionId ?? "")
  )
    throw invalidChallenge();
  return { challenge, record };
}

function challengeOf(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof data.challenge === "string" && CHALLENGE_SHAPE.test(data.challenge) ? data.challenge : null;
  } catch {
    return null;
  }
}

const invalidChallenge = () =>
  unprocessable("invalid_challenge", "the passkey answer's challenge was not issued for this ceremony and caller, has expired or was already used: get new options");
