import { notFound, unprocessable } from "../../errors.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";
import type { Deps } from "../deps.js";
import { prepareWallet, type WalletInput } from "../wallets/service.js";
import { findUserAggregate, type UserAggregateRecord as UserAggregate } from "../../db/repositories/user-aggregate.js";

export interface OauthAccountInput {
  provider: string;
  accountId: string;
  emails: string[];
  displayName?: string;
  username?: string;
  photos: string[];
  profile?: Record<string, unknown>;
}

export interface CreateUserInput extends users.UserProfile {
  wallets: WalletInput[];
  oauthAccounts: OauthAccountInput[];
}

/**
 * Creates a user with credentials the caller has already verified: the e-mail and phone number become
 * verified credentials, wallets are linked (addresses validated per chain) and OAuth accounts attached,
 * all in one transaction. Uniqueness is per environment and answers 422 with a specific code.
 */
export async function createUser(deps: Deps, environmentId: string, input: CreateUserInput): Promise<UserAggregate> {
  const prepared = input.wallets.map(prepareWallet);
  const userId = await deps.db.tx(async (t) => {
    if (input.email && (await users.userExistsWithEmail(t, environmentId, input.email)))
      throw unprocessable("email_already_exists", "a user with this email already exists in this environment");
    if (input.phoneNumber && (await users.userExistsWithPhone(t, environmentId, input.phoneNumber)))
      throw unprocessable("phone_number_already_exists", "a user with this phone number already exists in this environment");
    for (const w of prepared) {
      if (await wallets.addressLinked(t, environmentId, w.chain, w.address))
        throw unprocessable("wallet_already_linked", `wallet ${w.address} is already linked to a user of this environment`);
    }
    for (const o of input.oauthAccounts) {
      if (await users.oauthAccountTaken(t, environmentId, o.provider, o.accountId))
        throw unprocessable("oauth_account_already_linked", "this OAuth account is already linked to a user of this environment");
    }
    const user = await users.insertUser(t, environmentId, input);
    if (input.email) await users.insertCredential(t, environmentId, user.id, { format: "email", email: input.email });
    if (input.phoneNumber) await users.insertCredential(t, environmentId, user.id, { format: "phoneNumber", phoneNumber: input.phoneNumber });
    for (const w of prepared) await wallets.insertWallet(t, environmentId, user.id, w);
    for (const o of input.oauthAccounts) {
      await users.insertCredential(t, environmentId, user.id, {
        format: "oauth",
        oauthProvider: o.provider,
        oauthAccountId: o.accountId,
        oauthUsername: o.username,
        oauthDisplayName: o.displayName,
        oauthEmails: o.emails,
        oauthPhotos: o.photos,
        oauthMetadata: o.profile ?? {},
      });
    }
    return user.id;
  }).catch(translateUniqueViolation);
  return (await findUserAggregate(deps.db, environmentId, userId))!;
}

export async function getUser(deps: Deps, environmentId: string, userId: string): Promise<UserAggregate> {
  const user = await findUserAggregate(deps.db, environmentId, userId);
  if (!user) throw notFound("user");
  return user;
}

/** Two concurrent creates can both pass the checks; the unique indexes decide, and we answer the same 422. */
function translateUniqueViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505") {
    if (e.constraint === "users_environment_email_key")
      throw unprocessable("email_already_exists", "a user with this email already exists in this environment");
    if (e.constraint === "users_environment_phone_key")
      throw unprocessable("phone_number_already_exists", "a user with this phone number already exists in this environment");
    if (e.constraint === "wallets_environment_address_key")
      throw unprocessable("wallet_already_linked", "this wallet is already linked to a user of this environment");
    if (e.constraint === "verified_credentials_oauth_key")
      throw unprocessable("oauth_account_already_linked", "this OAuth account is already linked to a user of this environment");
  }
  throw err;
}
