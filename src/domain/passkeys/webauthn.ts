import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { unprocessable } from "../../errors.js";
import { CHALLENGE_TTL_SECONDS } from "./challenges.js";
import type { RelyingParty } from "./relying-party.js";
import type { PasskeyRecord } from "../../db/repositories/passkeys.js";

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

/** ES256 (every platform authenticator), EdDSA and RS256 (Windows Hello), in the client's preference order. */
const ALGORITHMS = [-7, -8, -257];
/** Attestation formats accepted: none (what passkeys send) and packed (self or certified), nothing exotic. */
const FORMATS = new Set(["none", "packed"]);
const TRANSPORTS = new Set(["usb", "nfc", "ble", "internal", "hybrid", "smart-card", "cable"]);

/** A user as WebAuthn names them: the handle is the user id's 16 bytes (no personal data in it). */
export interface WebAuthnUser {
  id: string;
  name: string;
  displayName: string;
}

export const userHandleOf = (userId: string) => Buffer.from(userId.replaceAll("-", ""), "hex").toString("base64url");

/**
 * Creation options for the browser: a discoverable credential (a passkey: the user signs in without
 * naming themselves) with user verification required, no attestation asked, the user's other
 * credentials excluded so one authenticator is not registered twice.
 */
export function registrationOptions(
  rp: RelyingParty,
  user: WebAuthnUser,
  challenge: string,
  exclude: { credentialId: string; transports: string[] }[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.rpId,
    rpID: rp.rpId,
    userID: Buffer.from(userHandleOf(user.id), "base64url"),
    userName: user.name,
    userDisplayName: user.displayName,
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: "none",
    excludeCredentials: exclude.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

export function authenticationOptions(rp: RelyingParty, challenge: string, allow: { credentialId: string; transports: string[] }[]): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    userVerification: "required",
    allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
  });
}

/** A credential a registration proved: what is stored to check its assertions with. */
export type RegisteredKey = Pick<
  PasskeyRecord,
  "credentialId" | "publicKey" | "signCount" | "transports" | "aaguid" | "attestationFormat" | "deviceType" | "backedUp"
>;

/**
 * Checks an attestation with the library (challenge, origin, RP id hash, user presence and verification,
 * algorithm, attestation statement) and keeps only the formats accepted here.
 */
export async function verifyRegistration(response: RegistrationResponseJSON, challenge: string, rp: RelyingParty): Promise<RegisteredKey> {
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (err) {
    throw invalidPasskey(err);
  }
  if (!result.verified) throw invalidPasskey();
  const info = result.registrationInfo;
  if (!FORMATS.has(info.fmt)) throw unprocessable("attestation_not_supported", `attestation format ${info.fmt} is not accepted (none or packed)`);
  return {
    credentialId: info.credential.id,
    publicKey: info.credential.publicKey,
    signCount: info.credential.counter,
    transports: (response.response.transports ?? []).filter((t) => TRANSPORTS.has(t)).slice(0, 8),
    aaguid: info.aaguid,
    attestationFormat: info.fmt,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}

/**
 * Checks an assertion with the library (challenge, origin, RP id hash, user presence and verification,
 * signature over authenticator data and client data hash) against the stored key. The counter rule is
 * applied by the caller, not here: the library is given a zero counter so that a valid signature with a
 * counter that went back (a cloned authenticator) is told apart from a bad signature, and audited.
 */
export async function verifyAssertion(
  response: AuthenticationResponseJSON,
  challenge: string,
  rp: RelyingParty,
  key: { credentialId: string; publicKey: Uint8Array; transports: string[] },
): Promise<{ signCount: number; backedUp: boolean }> {
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      credential: { id: key.credentialId, publicKey: new Uint8Array(key.publicKey), counter: 0, transports: key.transports as never },
      requireUserVerification: true,
    });
  } catch (err) {
    throw invalidPasskey(err);
  }
  if (!result.verified) throw invalidPasskey();
  return { signCount: result.authenticationInfo.newCounter, backedUp: result.authenticationInfo.credentialBackedUp };
}

/** Whether a verified assertion's counter is acceptable: it must grow, unless the authenticator keeps none (both 0). */
export const counterAdvanced = (stored: number, received: number) => (stored === 0 && received === 0) || received > stored;

/** The library's reason (what did not match) is safe to show: it names no secret, only the failed check. */
function invalidPasskey(err?: unknown) {
  const reason = err instanceof Error ? `: ${err.message.slice(0, 200)}` : "";
  return unprocessable("invalid_passkey", `the passkey answer does not verify${reason}`);
}
