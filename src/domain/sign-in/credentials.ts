import type { Queryable } from "../../db/db.js";
import * as signIn from "../../db/repositories/sign-in.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import { unprocessable } from "../../errors.js";
import type { FirstFactor } from "../mfa/factors.js";
import { chainAliases } from "../wallets/addresses.js";

/**
 * A credential the caller has just proved (a wallet signature checked, a one-time code matched, an OAuth
 * or chat account confirmed by its provider, an external identity provider's token verified, a passkey
 * assertion checked): the one input of the sign-in pipeline, whatever the method.
 */
export type ProvenCredential =
  | {
      kind: "wallet";
      /** The spec's chain enum value (EVM, SOL, ...); the address in its canonical form for that chain. */
      chain: string;
      address: string;
      walletName: string;
      walletProvider: string;
      additionalAddresses?: { address: string; type: string; publicKey: string | null }[];
    }
  | { kind: "email"; email: string }
  | {
      kind: "phone";
      /** E.164, e.g. +14155550123: how phone numbers compare. */
      e164: string;
      /** National digits, country calling code and ISO country, as the client sent and shows them. */
      phoneNumber: string;
      phoneCountryCode: string;
      isoCountryCode: string;
    }
  | {
      /** An account at an identity provider (OAuth / OIDC, chat, decentralized social): a verified credential. */
      kind: "oauth";
      /** The provider kind (src/domain/providers/kinds.ts) and the provider's stable id of the account. */
      provider: string;
      accountId: string;
      username?: string;
      displayName?: string;
      emails: string[];
      photos: string[];
      metadata: Record<string, unknown>;
      /** An e-mail the provider vouches for: fills the profile's empty e-mail, proves nothing more. */
      verifiedEmail?: string;
    }
  | {
      /** The subject of a token of the environment's external identity provider: users.external_user_id. */
      kind: "external";
      externalUserId: string;
      email?: string;
    }
  | {
      /** A passkey assertion: it names its user (passkeys are registered by a signed-in user only). */
      kind: "passkey";
      userId: string;
      passkeyId: string;
    };

/**
 * Who owns a credential. `credentialId` null: known by the profile's e-mail / phone only, to attach now;
 * `attached`: nothing to attach (the credential is the user's itself: an external subject, a passkey).
 */
export interface CredentialOwner {
  userId: string;
  credentialId: string | null;
  attached?: true;
}

/** Who owns the credential in the environment (a live user), if anyone. */
export async function findOwner(q: Queryable, environmentId: string, c: ProvenCredential): Promise<CredentialOwner | null> {
  switch (c.kind) {
    case "wallet":
      // ETH is the older name of EVM (the management API still accepts it): one wallet, one owner.
      return signIn.findWalletOwner(q, environmentId, chainAliases(c.chain), c.address);
    case "email":
      return signIn.findEmailOwner(q, environmentId, c.email);
    case "phone":
      return signIn.findPhoneOwner(q, environmentId, c.e164);
    case "oauth":
      return signIn.findOauthOwner(q, environmentId, c.provider, c.accountId);
    case "external": {
      const userId = await signIn.findExternalUser(q, environmentId, c.externalUserId);
      return userId ? { userId, credentialId: null, attached: true } : null;
    }
    case "passkey":
      return (await signIn.isLiveUser(q, environmentId, c.userId)) ? { userId: c.userId, credentialId: null, attached: true } : null;
  }
}

/**
 * Attaches the credential to the user (in the caller's transaction): the verified credential's id, and the
 * id of the resource its event names (the wallet for a wallet, else the credential).
 */
export async function attachCredential(q: Queryable, environmentId: string, userId: string, c: ProvenCredential): Promise<{ credentialId: string | null; resourceId: string }> {
  switch (c.kind) {
    case "wallet": {
      const w = await wallets.insertWalletRow(q, environmentId, userId, {
        name: c.walletName,
        chain: c.chain,
        address: c.address,
        provider: c.walletProvider,
        additionalAddresses: c.additionalAddresses ?? [],
      });
      return { credentialId: w.credentialId, resourceId: w.id };
    }
    case "email": {
      await signIn.fillContact(q, environmentId, userId, "email", c.email);
      const id = await users.insertCredential(q, environmentId, userId, { format: "email", email: c.email });
      return { credentialId: id, resourceId: id };
    }
    case "phone": {
      await signIn.fillContact(q, environmentId, userId, "phone_number", c.e164);
      const id = await users.insertCredential(q, environmentId, userId, {
        format: "phoneNumber",
        phoneNumber: c.phoneNumber,
        phoneCountryCode: c.phoneCountryCode,
        isoCountryCode: c.isoCountryCode,
      });
      return { credentialId: id, resourceId: id };
    }
    case "oauth": {
      if (c.verifiedEmail) await signIn.fillContact(q, environmentId, userId, "email", c.verifiedEmail);
      const id = await users.insertCredential(q, environmentId, userId, {
        format: "oauth",
        oauthProvider: c.provider,
        oauthAccountId: c.accountId,
        oauthUsername: c.username ?? null,
        oauthDisplayName: c.displayName ?? null,
        oauthEmails: c.emails,
        oauthPhotos: c.photos,
        oauthMetadata: c.metadata,
      });
      return { credentialId: id, resourceId: id };
    }
    case "external": {
      if (!(await signIn.setExternalUserId(q, environmentId, userId, c.externalUserId)))
        throw unprocessable("external_identity_taken", "this user is already linked to another identity of the external provider");
      if (c.email) await signIn.fillContact(q, environmentId, userId, "email", c.email);
      return { credentialId: null, resourceId: userId };
    }
    case "passkey":
      // Registered to its user before it can sign in: there is never anything to attach.
      throw new Error("a passkey is attached at registration, not by the sign-in pipeline");
  }
}

/** The catalogue event of attaching it, and what the event and audit row say (never a secret). */
export function attachedChange(c: ProvenCredential, userId: string, resourceId: string) {
  if (c.kind === "wallet")
    return { action: "wallet.linked", resourceType: "wallet", resourceId, after: { userId, chain: c.chain, address: c.address, walletName: c.walletName } };
  if (c.kind === "external") return { action: "user.updated", resourceType: "user", resourceId, after: { userId, externalUserId: c.externalUserId } };
  const after =
    c.kind === "email"
      ? { userId, format: "email", email: c.email }
      : c.kind === "phone"
        ? { userId, format: "phoneNumber", phoneNumber: c.e164 }
        : c.kind === "oauth"
          ? { userId, format: "oauth", provider: c.provider, accountId: c.accountId }
          : { userId, format: "passkey", passkeyId: c.passkeyId };
  return { action: "verified_credential.created", resourceType: "verified_credential", resourceId, after };
}

/** The first factor a sign-in with this credential is (what no second factor of its session may repeat). */
export const firstFactorOf = (c: ProvenCredential): FirstFactor => ({ kind: c.kind, email: c.kind === "email" ? c.email : null });

/** The identifiers allowlists may name for this credential. */
export function allowlistIdentifiers(c: ProvenCredential): { type: string; value: string }[] {
  switch (c.kind) {
    case "wallet":
      return [{ type: "walletPublicKey", value: c.address }];
    case "email":
      return emailIdentifiers(c.email.toLowerCase());
    case "phone":
      return [{ type: "phoneNumber", value: c.e164 }];
    case "oauth": {
      // An OAuth account's e-mails count as the account's identifiers for e-mail and domain lists.
      const emails = [...new Set([c.verifiedEmail, ...c.emails].filter((e): e is string => !!e).map((e) => e.toLowerCase()))];
      return emails.flatMap(emailIdentifiers);
    }
    case "external":
      return c.email ? emailIdentifiers(c.email.toLowerCase()) : [];
    case "passkey":
      // No identifier of its own: the policy lists the user's stored credentials instead.
      return [];
  }
}

const emailIdentifiers = (email: string) => [
  { type: "email", value: email },
  { type: "emailDomain", value: email.slice(email.lastIndexOf("@") + 1) },
];
