import { createHash } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import type { Queryable } from "../../db/db.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import { DomainError, badRequest, conflict, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { verifySessionKeySignature } from "./sdk-session-keys.js";

/**
 * Wallet requests the device signs with its session key (the published client's "turnkeySignedRequest"):
 * the service answers the body to sign (`activityBody`), the client sends it back verbatim with a stamp, and
 * `openSignedRequest` checks that it is this environment's body of the expected type, at most 10 minutes old,
 * stamped by a key the caller registered for a live session. `spendSignedRequest` then records the body's
 * hash in the change's transaction, so a body is accepted once (a replay or a concurrent twin: 409).
 *
 * The stamp is the Turnkey API-key stamp: base64url of JSON {publicKey, scheme, signature}, signature in hex
 * (DER or compact P-256 ECDSA over SHA-256 of the body's UTF-8 bytes; ed25519 for an ed25519 session key).
 */

export const DELETE_WALLETS = "ACTIVITY_TYPE_DELETE_WALLETS";
export const CREATE_WALLET_ACCOUNTS = "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS";
/** Composed by the client (no operation answers it): parameters {email}. */
export const UPDATE_RECOVERY_EMAIL = "ACTIVITY_TYPE_UPDATE_RECOVERY_EMAIL";
type ActivityType = typeof DELETE_WALLETS | typeof CREATE_WALLET_ACCOUNTS | typeof UPDATE_RECOVERY_EMAIL;

const MAX_AGE_MS = 10 * 60_000;
/** Clock slack for a body stamped by another api process whose clock runs a little ahead. */
const FUTURE_SLACK_MS = 60_000;

export interface WalletAccountParams {
  curve: string;
  pathFormat: string;
  path: string;
  addressFormat: string;
}

export interface ActivityParameters {
  walletIds?: string[];
  deleteWithoutExport?: boolean;
  walletId?: string;
  accounts?: WalletAccountParams[];
  email?: string;
}

export interface ActivityBody {
  organizationId: string;
  parameters: ActivityParameters;
  timestampMs: string;
  type: ActivityType;
}

/** The body for the client to sign, in the environment, dated now. */
export function activityBody(environmentId: string, type: ActivityType, parameters: ActivityParameters): ActivityBody {
  return { organizationId: environmentId, parameters, timestampMs: String(Date.now()), type };
}

export interface SignedRequest {
  body: string;
  stampHeaderValue: string;
}

const invalid = (why: string) => badRequest("invalid_signed_request", why, { field: "turnkeySignedRequest" });

function parseStamp(value: string): { publicKey: string; signature: string } {
  try {
    const s = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(value.replace(/=+$/, ""))));
    if (typeof s?.publicKey === "string" && typeof s?.signature === "string") return s;
  } catch {
    // fall through: one message for every malformed stamp
  }
  throw invalid("the stamp must be base64url JSON {publicKey, scheme, signature}");
}

/** The checked body of a signed request of `type` by the caller; its hash is the activity to spend. */
export async function openSignedRequest(
  deps: Pick<Deps, "db">,
  principal: EndUserPrincipal,
  signed: SignedRequest | undefined,
  type: ActivityType,
): Promise<{ parameters: ActivityParameters; activity: string }> {
  if (!signed?.body || !signed.stampHeaderValue) throw invalid("turnkeySignedRequest with body and stamp is required");
  let body: ActivityBody;
  try {
    body = JSON.parse(signed.body);
  } catch {
    throw invalid("the body must be the JSON text the request operation answered");
  }
  if (body?.organizationId !== principal.environmentId) throw invalid("the body is for another environment");
  if (body.type !== type) throw invalid(`the body must be of type ${type}`);
  const at = Number(body.timestampMs);
  const age = Date.now() - at;
  if (!Number.isFinite(at) || age > MAX_AGE_MS || age < -FUTURE_SLACK_MS)
    throw unprocessable("signed_request_expired", "the signed body is older than 10 minutes: ask for a new one");
  const stamp = parseStamp(signed.stampHeaderValue);
  const ok = await verifySessionKeySignature(deps, {
    environmentId: principal.environmentId,
    userId: principal.userId,
    sessionKeyPublicKey: stamp.publicKey,
    payload: new TextEncoder().encode(signed.body),
    signature: stamp.signature,
  });
  if (!ok) throw new DomainError("forbidden", "invalid_stamp", "the stamp is not a signature of the body by a live session key of this user");
  return { parameters: body.parameters ?? {}, activity: `signed:${createHash("sha256").update(signed.body).digest("hex")}` };
}

/** Records the signed body as used, in the change's transaction; 409 signed_request_replayed when it was. */
export async function spendSignedRequest(t: Queryable, principal: EndUserPrincipal, activity: string, walletId: string | null): Promise<void> {
  const fresh = await embedded.recordActivityOnce(t, principal.environmentId, { activity, userId: principal.userId, walletId });
  if (!fresh) throw conflict("signed_request_replayed", "this signed request has been used already");
}
