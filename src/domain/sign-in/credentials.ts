import type { Queryable } from "../../db/db.js";
import * as signIn from "../../db/repositories/sign-in.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import { chainAliases } from "../wallets/addresses.js";

/**
 * A credential the caller has just proved (a wallet signature checked, a one-time code matched): the one
 * input of the sign-in pipeline, whatever the method. OAuth accounts, external JWTs and passkeys (later
 * issues) add their kinds here.
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
    };

/** Who owns the credential in the environment (a live user), if anyone. */
export async function findOwner(q: Queryable, environmentId: string, c: ProvenCredential): Promise<{ userId: string; credentialId: string | null } | null> {
  switch (c.kind) {
    case "wallet":
      // ETH is the older name of EVM (the management API still accepts it): one wallet, one owner.
      return signIn.findWalletOwner(q, environmentId, chainAliases(c.chain), c.address);
    case "email":
      return signIn.findEmailOwner(q, environmentId, c.email);
    case "phone":
      return signIn.findPhoneOwner(q, environmentId, c.e164);
  }
}

/**
 * Attaches the credential to the user (in the caller's transaction): the verified credential's id, and the
 * id of the resource its event names (the wallet for a wallet, else the credential).
 */
export async function attachCredential(q: Queryable, environmentId: string, userId: string, c: ProvenCredential): Promise<{ credentialId: string; resourceId: string }> {
  switch (c.kind) {
    case "wallet": {
      const w = await wallets.insertWallet(q, environmentId, userId, {
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
  }
}

/** The catalogue event of attaching it, and what the event and audit row say (never a secret). */
export function attachedChange(c: ProvenCredential, userId: string, resourceId: string) {
  if (c.kind === "wallet")
    return { action: "wallet.linked", resourceType: "wallet", resourceId, after: { userId, chain: c.chain, address: c.address, walletName: c.walletName } };
  const after = c.kind === "email" ? { userId, format: "email", email: c.email } : { userId, format: "phoneNumber", phoneNumber: c.e164 };
  return { action: "verified_credential.created", resourceType: "verified_credential", resourceId, after };
}

/** The identifiers allowlists may name for this credential. */
export function allowlistIdentifiers(c: ProvenCredential): { type: string; value: string }[] {
  switch (c.kind) {
    case "wallet":
      return [{ type: "walletPublicKey", value: c.address }];
    case "email": {
      const email = c.email.toLowerCase();
      return [
        { type: "email", value: email },
        { type: "emailDomain", value: email.slice(email.lastIndexOf("@") + 1) },
      ];
    }
    case "phone":
      return [{ type: "phoneNumber", value: c.e164 }];
  }
}
