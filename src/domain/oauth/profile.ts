import { unprocessable } from "../../errors.js";
import { findPreset, type ClaimMapping } from "../providers/presets.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { canonicalEmail } from "../verifications/email.js";

export type OauthCredential = Extract<ProvenCredential, { kind: "oauth" }>;

/** OpenID Connect's standard claims (ID token, then userinfo). */
const OIDC_CLAIMS: ClaimMapping = {
  accountId: "sub",
  username: "preferred_username",
  displayName: "name",
  photo: "picture",
  email: "email",
  emailVerified: "email_verified",
};
/** A plain OAuth 2 issuer without a preset: the usual shapes of a userinfo answer. */
const GENERIC_OAUTH2_CLAIMS: ClaimMapping = { accountId: "id", username: "login", displayName: "name", photo: "avatar_url", email: "email" };

function at(doc: Record<string, unknown>, path: string | undefined): unknown {
  if (!path) return undefined;
  let v: unknown = doc;
  for (const part of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}
const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim().slice(0, 255) : typeof v === "number" ? String(v) : undefined);

/**
 * The verified OAuth credential of what the issuer said about the account: the ID token's claims (already
 * validated) merged over userinfo for OpenID Connect, the userinfo answer through the preset's mapping for
 * plain OAuth 2. An e-mail counts as the account's (and may fill the profile) only when the issuer says it
 * is verified; otherwise it is kept in metadata only, so an unverified address never passes an allowlist.
 */
export function credentialOf(
  providerType: string,
  preset: string | null,
  oidc: boolean,
  claims: Record<string, unknown>,
  userinfo: Record<string, unknown>,
): OauthCredential {
  const mapping = oidc ? OIDC_CLAIMS : (preset ? findPreset(preset)?.claims : undefined) ?? GENERIC_OAUTH2_CLAIMS;
  const doc = { ...userinfo, ...claims };
  const accountId = text(at(doc, mapping.accountId)) ?? (oidc ? undefined : text(doc.sub));
  if (!accountId) throw unprocessable("oauth_profile_incomplete", `the provider named no account id (${mapping.accountId})`);
  const email = canonicalEmail(text(at(doc, mapping.email)) ?? "") ?? undefined;
  const verified = email !== undefined && mapping.emailVerified !== undefined && at(doc, mapping.emailVerified) === true;
  const photo = text(at(doc, mapping.photo));
  return {
    kind: "oauth",
    provider: providerType,
    accountId,
    username: text(at(doc, mapping.username)),
    displayName: text(at(doc, mapping.displayName)),
    emails: verified ? [email] : [],
    photos: photo ? [photo] : [],
    metadata: { ...(email && !verified ? { unverifiedEmail: email } : {}), ...(typeof doc.iss === "string" ? { issuer: doc.iss } : {}) },
    ...(verified ? { verifiedEmail: email } : {}),
  };
}
