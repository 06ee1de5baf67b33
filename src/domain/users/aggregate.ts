import type { Queryable } from "../../db/db.js";
import * as users from "../../db/repositories/users.js";
import * as wallets from "../../db/repositories/wallets.js";

/** A user with everything the User resource shows: credentials, wallets and sessions. */
export interface UserAggregate {
  user: users.UserRecord;
  credentials: users.CredentialRecord[];
  wallets: wallets.WalletRecord[];
  sessions: users.SessionRecord[];
}

export async function loadUserAggregate(q: Queryable, environmentId: string, userId: string): Promise<UserAggregate | null> {
  const user = await users.findUser(q, environmentId, userId);
  if (!user) return null;
  const [credentials, userWallets, sessions] = await Promise.all([
    users.listCredentials(q, environmentId, userId),
    wallets.listUserWallets(q, environmentId, userId),
    users.listSessions(q, environmentId, userId),
  ]);
  return { user, credentials, wallets: userWallets, sessions };
}
