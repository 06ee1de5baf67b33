import { createHash, randomUUID } from "node:crypto";
import { generateWalletKey, keyFamilyOf, openWalletKey, sealWalletKey, signEvmMessage, signSolanaMessage } from "../../../crypto/wallet-keys.js";
import * as repo from "../../../db/repositories/waas-wallets.js";
import type { WaasWalletRecord } from "../../../db/repositories/waas-wallets.js";
import { findWaasPolicy } from "../../../db/repositories/waas.js";
import { badRequest, conflict, notFound, unprocessable } from "../../../errors.js";
import { audited } from "../../audit/audit.js";
import type { Deps } from "../../deps.js";
import type { EnvironmentAccess } from "../../tenancy/access.js";
import { findOrCreateUser, parseIdentifier } from "../../embedded-wallets/service.js";
import { fromClientChain } from "../chain-names.js";
import { evaluatePolicy, policyDenied } from "../policy.js";
import { refuseTransactionMessage } from "../sign-request-svm.js";

/**
 * WaaS wallets: wallets whose key the service generates and holds (sealed at rest, bound to the wallet row),
 * owned by a user of the environment or by the environment itself. With delegated access active the
 * service signs for the wallet on the developer's request; revoking it is final for that wallet. The key is
 * not split: the developer's signing request (the published client's delegatedSignMessage) carries a message
 * and no share, so the service must be able to sign alone, and shares that all sit with the service would
 * protect nothing a threshold scheme promises. Threshold wallets are the SDK's (src/domain/waas/threshold);
 * this module only records where a developer says shares were backed up.
 */

/** The owner string bound (as associated data) to a wallet's sealed key. */
export const keyOwner = (walletId: string) => `waas_wallet:${walletId}`;

export const delegatedAccessActive = (w: WaasWalletRecord) => w.delegatedAccessGrantedAt !== null && w.delegatedAccessRevokedAt === null;

/**
 * The chains of a create request, deduplicated in request order: `chains` (the published client's form) and
 * `chain`. SVM (the client's name for the Solana VM) is SOL. 400 when none is given.
 */
function waasChainsOf(chains: readonly string[], chain: string): ("EVM" | "SOL")[] {
  const all = [...chains, ...(chain ? [chain] : [])].map(fromClientChain);
  const unique = [...new Set(all)];
  if (unique.length === 0) throw badRequest("chain_required", "give chain or chains", { field: "chains" });
  for (const c of unique) if (c !== "EVM" && c !== "SOL") throw badRequest("unsupported_chain", `chain ${c} is not supported`, { field: "chains" });
  return unique as ("EVM" | "SOL")[];
}

/** Audit snapshot of a wallet (public data only). */
const snapshot = (w: WaasWalletRecord) => ({
  chain: w.chain,
  address: w.address,
  userId: w.userId,
  name: w.name,
  delegatedAccess: delegatedAccessActive(w),
});

/**
 * A create request of the published client: one wallet per chain (`chains`, or Sigil's `chain`), for the
 * user named by id or by identifier + type (found or created). Returns the wallets in request order and the
 * user they belong to (null for wallets of no user).
 */
export async function createWaasWallets(
  deps: Deps,
  access: EnvironmentAccess,
  input: {
    chains: readonly string[];
    chain: string;
    userId: string | null;
    identifier: string;
    identifierType: string;
    name: string | null;
    delegatedAccess: boolean;
  },
): Promise<{ wallets: WaasWalletRecord[]; userId: string | null }> {
  const chains = waasChainsOf(input.chains, input.chain);
  let userId = input.userId;
  if (input.identifier || input.identifierType) {
    if (!input.identifierType) throw badRequest("identifier_type_required", "type is required with identifier", { field: "type" });
    userId = await findOrCreateUser(deps, access, parseIdentifier(input.identifierType, input.identifier));
  }
  const wallets: WaasWalletRecord[] = [];
  for (const chain of chains)
    wallets.push(await createWaasWallet(deps, access, { chain, userId, name: input.name, delegatedAccess: input.delegatedAccess }));
  return { wallets, userId };
}

async function createWaasWallet(
  deps: Pick<Deps, "db" | "sealer">,
  access: EnvironmentAccess,
  input: { chain: "EVM" | "SOL"; userId: string | null; name: string | null; delegatedAccess: boolean },
): Promise<WaasWalletRecord> {
  const family = keyFamilyOf(input.chain);
  if (!family) throw badRequest("unsupported_chain", `chain ${input.chain} is not supported`);
  if (input.userId && !(await repo.userExists(deps.db, access.environmentId, input.userId))) throw notFound("user");
  const id = randomUUID();
  const key = generateWalletKey(family);
  const sealed = sealWalletKey(deps.sealer, key, keyOwner(id));
  key.privateKey.fill(0);
  try {
    return await audited(deps, access, async (t, record) => {
      const w = await repo.insertWaasWallet(t, access.environmentId, {
        id,
        userId: input.userId,
        name: input.name,
        chain: input.chain,
        address: key.address,
        publicKey: key.publicKey,
        privateKeySealed: sealed,
        delegatedAccess: input.delegatedAccess,
      });
      await record({ action: "waas_wallet.created", resourceType: "waas_wallet", resourceId: w.id, after: snapshot(w) });
      return w;
    });
  } catch (err) {
    // 23503: the user was deleted meanwhile; 23505: an address collision (not expected with random keys).
    const code = (err as { code?: string }).code;
    if (code === "23503") throw notFound("user");
    if (code === "23505") throw conflict("waas_wallet_already_exists", "a wallet with this address already exists");
    throw err;
  }
}

/**
 * A backup record with the id its key share has at the location: the one the caller named (an external
 * vault's, a drive file's), else the record's own id, under which the share is known when the location
 * gives it none (the service, a drive the device chose the file of). The client requires one per location.
 */
const withLocationId = (b: repo.KeyShareBackupRecord): repo.KeyShareBackupRecord => ({ ...b, externalKeyShareId: b.externalKeyShareId || b.id });

export async function getWaasWallet(deps: Pick<Deps, "db">, access: EnvironmentAccess, walletId: string) {
  const w = await repo.findWaasWallet(deps.db, access.environmentId, walletId);
  if (!w) throw notFound("waas wallet");
  return { wallet: w, backups: (await repo.listKeyShareBackups(deps.db, access.environmentId, walletId)).map(withLocationId) };
}

/**
 * Revokes delegated access of the named wallets and/or of every wallet of a user. Unknown wallet ids (or
 * another environment's) answer 404 and change nothing.
 */
export async function revokeDelegatedAccess(
  deps: Pick<Deps, "db">,
  access: EnvironmentAccess,
  input: { walletIds: string[]; userId: string | null },
): Promise<{ wallets: WaasWalletRecord[]; revokedCount: number }> {
  const walletIds = [...new Set(input.walletIds)];
  if (walletIds.length === 0 && !input.userId)
    throw badRequest("wallet_ids_or_user_id_required", "give walletIds or userId", { field: "walletIds" });
  return audited(deps, access, async (t, record) => {
    const named = await repo.findWaasWallets(t, access.environmentId, walletIds);
    if (named.length !== walletIds.length) throw notFound("waas wallet");
    let targets = named;
    if (input.userId) {
      if (!(await repo.userExists(t, access.environmentId, input.userId))) throw notFound("user");
      const own = await repo.listUserWaasWallets(t, access.environmentId, input.userId);
      targets = [...named, ...own.filter((w) => !walletIds.includes(w.id))];
    }
    const revoked = new Set(await repo.revokeDelegatedAccess(t, access.environmentId, targets.map((w) => w.id)));
    const after = await repo.findWaasWallets(t, access.environmentId, targets.map((w) => w.id));
    for (const w of after.filter((x) => revoked.has(x.id)))
      await record({
        action: "waas_wallet.delegated_access_revoked",
        resourceType: "waas_wallet",
        resourceId: w.id,
        before: { delegatedAccess: true },
        after: { delegatedAccess: false, revokedAt: w.delegatedAccessRevokedAt },
      });
    return { wallets: after, revokedCount: revoked.size };
  });
}

/** Revokes one wallet's delegated access; 404 for an unknown wallet, a no-op when access is not active. */
export async function revokeWalletDelegatedAccess(deps: Pick<Deps, "db">, access: EnvironmentAccess, walletId: string) {
  const w = await repo.findWaasWallet(deps.db, access.environmentId, walletId);
  if (!w) throw notFound("waas wallet");
  await revokeDelegatedAccess(deps, access, { walletIds: [walletId], userId: null });
}

/**
 * Signs a message with the wallet's key under delegated access: EIP-191 personal_sign (EVM) or ed25519
 * over the UTF-8 bytes, base58 (SOL). Refused with 422 when delegated access is not active or the bytes are a
 * Solana transaction's message (message_is_transaction), 403 when the environment's policy does not allow
 * it. Each signature is recorded in the audit trail (the message's SHA-256, not the message) under a fresh
 * operation id, which is returned with the signature.
 */
export async function signWithDelegatedAccess(
  deps: Pick<Deps, "db" | "sealer">,
  access: EnvironmentAccess,
  walletId: string,
  message: string,
): Promise<{ signature: string; operationId: string }> {
  return audited(deps, access, async (t, record) => {
    const w = await repo.lockWaasWalletWithKey(t, access.environmentId, walletId);
    if (!w) throw notFound("waas wallet");
    if (w.delegatedAccessGrantedAt === null)
      throw unprocessable("delegated_access_not_granted", "this wallet was created without delegated access");
    if (w.delegatedAccessRevokedAt !== null) throw unprocessable("delegated_access_revoked", "delegated access to this wallet was revoked");
    const policy = await findWaasPolicy(t, access.environmentId);
    const verdict = evaluatePolicy(policy?.rules ?? null, { chain: w.chain, method: "signMessage" });
    if (!verdict.allowed) throw policyDenied(verdict);
    // The same rule as the threshold wallets' messages: a transaction's message is not signed as a message.
    if (w.chain !== "EVM") refuseTransactionMessage(new TextEncoder().encode(message), "message");
    const key = openWalletKey(deps.sealer, w.privateKeySealed, keyOwner(w.id));
    let signature: string;
    try {
      signature = w.chain === "EVM" ? await signEvmMessage(key, message) : signSolanaMessage(key, message);
    } finally {
      key.fill(0);
    }
    const operationId = randomUUID();
    await record({
      action: "waas_wallet.message_signed",
      resourceType: "waas_wallet",
      resourceId: w.id,
      after: { chain: w.chain, operationId, messageSha256: createHash("sha256").update(message, "utf8").digest("hex") },
    });
    return { signature, operationId };
  });
}

/** Records backup locations of the wallet's key shares; returns the records of this call. */
export async function recordKeyShareBackups(
  deps: Pick<Deps, "db">,
  access: EnvironmentAccess,
  walletId: string,
  locations: { location: string; externalKeyShareId: string }[],
  /** When given, the wallet must belong to this user (404 otherwise, as for a wallet that does not exist). */
  ownerId: string | null = null,
) {
  const distinct = [...new Map(locations.map((l) => [`${l.location}\u0000${l.externalKeyShareId}`, l])).values()];
  return audited(deps, access, async (t, record) => {
    const w = await repo.findWaasWallet(t, access.environmentId, walletId);
    if (!w || (ownerId !== null && w.userId !== ownerId)) throw notFound("waas wallet");
    const stored = (await repo.upsertKeyShareBackups(t, access.environmentId, walletId, distinct)).map((s) => ({ ...s, record: withLocationId(s.record) }));
    for (const { record: b, created } of stored)
      await record({
        action: created ? "waas_key_share_backup.created" : "waas_key_share_backup.updated",
        resourceType: "waas_key_share_backup",
        resourceId: b.id,
        after: { walletId, location: b.location, externalKeyShareId: b.externalKeyShareId },
      });
    return stored.map((s) => s.record);
  });
}
