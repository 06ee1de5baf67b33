import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { PasskeyRecord } from "../../db/repositories/passkeys.js";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "../../domain/passkeys/webauthn.js";
import type {
  AuthenticationOptionsSchema,
  MfaAttestation,
  PasskeyAssertion,
  PasskeyRegistration,
  PasskeySchema,
  RegistrationOptionsSchema,
} from "../../gen/sigil/passkeys/v0/passkeys_pb.js";

/** The validated message (validation declared it required, so it is present). */
function present<T>(m: T | undefined): T {
  if (!m) throw new Error("validation let a request without its credential through");
  return m;
}

/**
 * An attestation as the client sends it (a passkey's PasskeyRegisterRequest or an MFA device's
 * PasskeyRegisterVerifyRequest: the same fields, spelled clientDataJson) as the WebAuthn JSON the verifier reads.
 */
export function attestationOf(m: PasskeyRegistration | MfaAttestation | undefined): RegistrationResponseJSON {
  const c = present(m);
  const r = present(c.response);
  return {
    id: c.id,
    rawId: c.rawId,
    type: "public-key",
    clientExtensionResults: {},
    response: { clientDataJSON: r.clientDataJson, attestationObject: r.attestationObject, transports: r.transports as never },
  };
}

/** The client's PasskeyAuthRequest as WebAuthn JSON. */
export function assertionOf(m: PasskeyAssertion | undefined): AuthenticationResponseJSON {
  const c = present(m);
  const r = present(c.response);
  return {
    id: c.id,
    rawId: c.rawId,
    type: "public-key",
    clientExtensionResults: {},
    response: { clientDataJSON: r.clientDataJson, authenticatorData: r.authenticatorData, signature: r.signature, userHandle: r.userHandle || undefined },
  };
}

/** Whether the caller asked for an mfaToken, and of which kind. */
export const mfaTokenAsked = (m: PasskeyAssertion | PasskeyRegistration | undefined) =>
  m?.createMfaToken ? { createMfaToken: { singleUse: m.createMfaToken.singleUse } } : {};

export function toRegistrationOptions(o: PublicKeyCredentialCreationOptionsJSON): MessageInitShape<typeof RegistrationOptionsSchema> {
  return {
    attestation: o.attestation ?? "none",
    authenticatorSelection: {
      authenticatorAttachment: o.authenticatorSelection?.authenticatorAttachment ?? "",
      requireResidentKey: o.authenticatorSelection?.requireResidentKey,
      residentKey: o.authenticatorSelection?.residentKey ?? "",
      userVerification: o.authenticatorSelection?.userVerification ?? "",
    },
    challenge: o.challenge,
    excludeCredentials: (o.excludeCredentials ?? []).map((c) => ({ id: c.id, transports: c.transports ?? [], type: c.type })),
    extensions: { credProps: o.extensions?.credProps },
    hints: o.hints ?? [],
    pubKeyCredParams: o.pubKeyCredParams.map((p) => ({ alg: p.alg, type: p.type })),
    rp: { id: o.rp.id ?? "", name: o.rp.name },
    timeout: o.timeout ?? 0,
    user: { id: o.user.id, name: o.user.name, displayName: o.user.displayName },
  };
}

export function toAuthenticationOptions(o: PublicKeyCredentialRequestOptionsJSON): MessageInitShape<typeof AuthenticationOptionsSchema> {
  return {
    challenge: o.challenge,
    timeout: o.timeout ?? 0,
    rpId: o.rpId ?? "",
    userVerification: o.userVerification ?? "",
    allowCredentials: (o.allowCredentials ?? []).map((c) => ({ id: c.id, transports: c.transports ?? [], type: c.type })),
  };
}

/** The client's UserPasskey. */
export function toPasskey(p: PasskeyRecord): MessageInitShape<typeof PasskeySchema> {
  return {
    id: p.id,
    alias: p.alias ?? "",
    userAgent: p.userAgent ?? "",
    origin: p.origin,
    credentialId: p.credentialId,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt?.toISOString() ?? "",
  };
}
