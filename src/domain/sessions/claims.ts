import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import type { UserRecord } from "../../db/repositories/users.js";

/**
 * What a session token says about its user. Claims use the token's snake_case; the verified credentials
 * carry what a relying party needs to know which wallets, e-mails, phones and accounts the user proved
 * (never an OAuth token or anything sealed).
 */
export function credentialClaims(a: SignedInUserRecord): Record<string, unknown>[] {
  const wallets = a.wallets.map((w) => ({
    id: w.credentialId,
    format: "blockchain",
    address: w.address,
    chain: w.chain,
    public_identifier: w.address,
    wallet_name: w.name,
    wallet_provider: w.provider,
    verifiedAt: w.createdAt,
  }));
  const others = a.credentials.map((c) => {
    const claim: Record<string, unknown> = { id: c.id, format: c.format, verifiedAt: c.verifiedAt };
    if (c.email) Object.assign(claim, { email: c.email, public_identifier: c.email });
    if (c.phoneNumber)
      Object.assign(claim, { phoneNumber: c.phoneNumber, phoneCountryCode: c.phoneCountryCode, isoCountryCode: c.isoCountryCode, public_identifier: c.phoneNumber });
    if (c.oauthProvider)
      Object.assign(claim, { oauth_provider: c.oauthProvider, oauth_account_id: c.oauthAccountId, oauth_username: c.oauthUsername, public_identifier: c.oauthUsername ?? c.oauthAccountId });
    return claim;
  });
  return [...wallets, ...others];
}

/** Profile fields in tokens: only those the environment collects (sdk.collectUserData), when set. */
const PROFILE_CLAIMS: [keyof UserRecord, string][] = [
  ["email", "email"],
  ["phoneNumber", "phone_number"],
  ["alias", "alias"],
  ["firstName", "first_name"],
  ["lastName", "last_name"],
  ["username", "username"],
  ["jobTitle", "job_title"],
  ["country", "country"],
  ["team", "team"],
  ["tShirtSize", "t_shirt_size"],
];

export function profileClaims(u: UserRecord, collected: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, claim] of PROFILE_CLAIMS) if (collected.has(field) && u[field]) out[claim] = u[field];
  return out;
}
