import { randomUUID } from "node:crypto";
import { generateWalletKey, keyFamilyOf, sealWalletKey } from "../../crypto/wallet-keys.js";
import { badRequest, notFound, unprocessable } from "../../errors.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import { findUserAggregate } from "../../db/repositories/user-aggregate.js";
import * as wallets from "../../db/repositories/wallets.js";
import type { Queryable } from "../../db/db.js";
import { audited, type RecordChange } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { walletSnapshot } from "../wallets/service.js";
import { canonicalEmail } from "../verifications/email.js";

/**
 * Pregenerated embedded wallets: the management surface names a user by an identifier (creating the user,
 * with that identifier as a verified credential, when none has it) and the service generates one key pair
 * per chain. The private key is sealed at rest, bound to its wallet; the address derives from the public
 * key. The wallet stays unclaimed (claimed_at null) until the SDK claims it for the signed-in user.
 */

/** The chains embedded wallets can be pregenerated on (spec ChainEnum spelling) and their key families. */
export const EMBEDDED_WALLET_CHAINS = ["EVM", "SOL"] as const;

/** The version new embedded wallets get (no environment setting chooses another yet). */
export const DEFAULT_EMBEDDED_WALLET_VERSION = "V2";

export const EMBEDDED_WALLET_NAME = "embedded";

export type UserIdentifier =
  | { type: "email"; email: string }
  | { type: "phoneNumber"; phoneNumber: string }
  | { type: "externalUserId"; externalUserId: string }
  | { type: "id"; userId: string }
  | { type: "decentralizedSocial"; fid: string | null; username: string | null; email: string | null };

const E164 = /^\+[1-9][0-9]{6,14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Checks the identifier against its type (400 invalid_identifier) and returns it in stored form. */
export function parseIdentifier(type: string, value: string): UserIdentifier {
  const v = value.trim();
  const invalid = (what: string) => badRequest("invalid_identifier", `identifier must be ${what} for type ${type}`, { field: "identifier" });
  switch (type) {
    case "email": {
      // The one e-mail normaliser: the user it finds or creates is the one sign-in by that address reaches.
      const email = canonicalEmail(v);
      if (email === null) throw invalid("a plain email address (no quoted local part)");
      return { type, email };
    }
    case "phoneNumber":
      if (!E164.test(v)) throw invalid("a phone number in E.164 form (+ and 7 to 15 digits)");
      return { type, phoneNumber: v };
    case "externalUserId":
      if (v === "") throw invalid("a non-empty string");
      return { type, externalUserId: v };
    case "id":
      if (!UUID.test(v)) throw invalid("a 36-character lowercase UUID");
      return { type, userId: v };
    default:
      throw badRequest("invalid_identifier_type", `unknown identifier type ${type}`, { field: "type" });
  }
}

/** The requested chains, deduplicated in request order; EVM when none. */
export function chainsOf(chains: readonly string[], chain = ""): string[] {
  const all = [...chains, ...(chain ? [chain] : [])];
  const unique = [...new Set(all)];
  for (const c of unique)
    if (!keyFamilyOf(c) || !(EMBEDDED_WALLET_CHAINS as readonly string[]).includes(c))
      throw badRequest("invalid_chain", `embedded wallets cannot be pregenerated on ${c}`, { field: "chains" });
  return unique.length ? unique : ["EVM"];
}

/** Finds the user the identifier names (row locked) or creates it with its credential; null user id = 404. */
async function resolveUser(t: Queryable, access: EnvironmentAccess, id: UserIdentifier, record: RecordChange): Promise<string> {
  const env = access.environmentId;
  let userId: string | null;
  switch (id.type) {
    case "id":
      if (!(await wallets.lockUser(t, env, id.userId))) throw notFound("user");
      return id.userId;
    case "email":
      userId = await embedded.lockUserByEmail(t, env, id.email);
      break;
    case "phoneNumber":
      userId = await embedded.lockUserByPhone(t, env, id.phoneNumber);
      break;
    case "externalUserId":
      userId = await embedded.lockUserByExternalId(t, env, id.externalUserId);
      break;
    case "decentralizedSocial": {
      userId = await embedded.lockUserBySocialAccount(t, env, id);
      if (userId) return userId;
      // The account is new: link it to the user with the given e-mail, else to a new user.
      userId = id.email ? await embedded.lockUserByEmail(t, env, id.email) : null;
      const created = !userId;
      if (!userId) userId = await embedded.insertIdentifiedUser(t, env, { email: id.email, username: id.username });
      if (created && id.email) await embedded.insertVerifiedCredential(t, env, userId, { format: "email", email: id.email });
      const credentialId = await embedded.insertVerifiedCredential(t, env, userId, {
        format: "oauth",
        provider: embedded.DECENTRALIZED_SOCIAL,
        accountId: id.fid,
        username: id.username,
      });
      if (created) await record({ action: "user.created", resourceType: "user", resourceId: userId, after: { id: userId, email: id.email } });
      await record({
        action: "verified_credential.created",
        resourceType: "verified_credential",
        resourceId: credentialId,
        after: { id: credentialId, userId, format: "oauth", provider: embedded.DECENTRALIZED_SOCIAL, accountId: id.fid, username: id.username },
      });
      return userId;
    }
  }
  if (userId) return userId;
  const fields =
    id.type === "email" ? { email: id.email } : id.type === "phoneNumber" ? { phoneNumber: id.phoneNumber } : { externalUserId: id.externalUserId };
  userId = await embedded.insertIdentifiedUser(t, env, fields);
  if (id.type === "email") await embedded.insertVerifiedCredential(t, env, userId, { format: "email", email: id.email });
  if (id.type === "phoneNumber") await embedded.insertVerifiedCredential(t, env, userId, { format: "phoneNumber", phoneNumber: id.phoneNumber });
  await record({ action: "user.created", resourceType: "user", resourceId: userId, after: { id: userId, ...fields } });
  return userId;
}

/** Finds the user the identifier names or creates it (audited); 404 for an unknown user id. */
export async function findOrCreateUser(deps: Deps, access: EnvironmentAccess, id: UserIdentifier): Promise<string> {
  return audited(deps, access, (t, record) => resolveUser(t, access, id, record));
}

/**
 * One embedded wallet per chain for the user (row locked by the caller), each with its key generated here and
 * sealed bound to the wallet, audited. 422 embedded_wallet_already_exists when the user has a live embedded
 * wallet on one of the chains (nothing is created then). `pregenerated`: made by the management surface for
 * an identifier (unclaimed until the SDK claims it); else made by the signed-in user for themself.
 */
export async function createUserEmbeddedWallets(
  deps: Pick<Deps, "sealer">,
  t: Queryable,
  env: string,
  userId: string,
  chains: string[],
  record: RecordChange,
  opts: { pregenerated: boolean },
): Promise<void> {
  const existing = new Set(await wallets.embeddedWalletChains(t, env, userId));
  const taken = chains.filter((c) => existing.has(c));
  if (taken.length)
    throw unprocessable("embedded_wallet_already_exists", `the user already has an embedded wallet on ${taken.join(", ")}`, {
      userId,
      chains: taken,
    });
  for (const chain of chains) {
    const family = keyFamilyOf(chain)!;
    const key = generateWalletKey(family);
    const walletId = randomUUID();
    const wallet = await wallets.insertWallet(t, env, userId, {
      id: walletId,
      pregenerated: opts.pregenerated,
      name: EMBEDDED_WALLET_NAME,
      chain,
      address: key.address,
      provider: "embeddedWallet",
      properties: { version: DEFAULT_EMBEDDED_WALLET_VERSION },
    });
    await embedded.insertEmbeddedWalletKey(t, env, {
      walletId,
      keyFamily: family,
      publicKey: key.publicKey,
      privateKeySealed: sealWalletKey(deps.sealer, key, `wallet:${walletId}`),
    });
    key.privateKey.fill(0);
    await record({ action: opts.pregenerated ? "embedded_wallet.pregenerated" : "wallet.created", resourceType: "wallet", resourceId: walletId, after: walletSnapshot(wallet) });
  }
}

/**
 * Finds or creates the user and pregenerates one embedded wallet per chain, all in one transaction with
 * the audit rows. 422 embedded_wallet_already_exists when the user has a live embedded wallet on one of
 * the chains (nothing is created then). Returns the user with its wallets.
 */
export async function pregenerateEmbeddedWallets(deps: Deps, access: EnvironmentAccess, id: UserIdentifier, chains: string[]) {
  const attempt = () =>
    audited(deps, access, async (t, record) => {
      const env = access.environmentId;
      const userId = await resolveUser(t, access, id, record);
      await createUserEmbeddedWallets(deps, t, env, userId, chains, record, { pregenerated: true });
      const user = await findUserAggregate(t, env, userId);
      if (!user) throw notFound("user");
      return user;
    });
  try {
    return await attempt();
  } catch (err) {
    // Two first requests for the same new identifier raced: the loser's insert hit the unique index. Its
    // transaction rolled back, so running it again finds the winner's user.
    if ((err as { code?: string }).code !== "23505") throw err;
  }
  try {
    return await attempt();
  } catch (err) {
    // Still taken: the identifier belongs to a row this lookup does not see as live (e.g. a deleted user's).
    if ((err as { code?: string }).code === "23505")
      throw unprocessable("identifier_already_linked", "the identifier is already linked to another user of this environment");
    throw err;
  }
}

/** The versions of the environment's live embedded wallets with their counts, and the default for new ones. */
export async function embeddedWalletVersions(deps: Deps, access: EnvironmentAccess) {
  const versions = await wallets.countEmbeddedWalletVersions(deps.db, access.environmentId);
  return { versions, defaultVersion: DEFAULT_EMBEDDED_WALLET_VERSION, activeVersions: versions.map((v) => v.version) };
}
