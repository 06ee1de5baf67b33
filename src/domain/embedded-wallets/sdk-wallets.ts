import type { Queryable } from "../../db/db.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import * as wallets from "../../db/repositories/wallets.js";
import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import { audited, type RecordChange } from "../audit/audit.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { endUserAccess, renewSession, type ClientMeta } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { walletSnapshot } from "../wallets/service.js";
import { chainsOf, createUserEmbeddedWallets } from "./service.js";
import { parseSessionKey, registerSessionKey } from "./sdk-session-keys.js";
import { CREATE_WALLET_ACCOUNTS, DELETE_WALLETS, activityBody, openSignedRequest, spendSignedRequest, type SignedRequest } from "./sdk-signed-requests.js";

/**
 * The signed-in user's own embedded wallets (V1: the service generates the key and keeps it sealed, bound to
 * the wallet; the wallet is a verified credential of the user). Each change runs in one transaction with its
 * audit rows and, where the user's credentials change, answers the session's new tokens (the JWT lists the
 * wallets). Every lookup is by (environment, user): another user's wallet is 404, never 403.
 */

/** Who calls: the session's user in the environment the path names. */
export interface WalletCaller {
  env: PublicEnvironment;
  principal: EndUserPrincipal;
  meta: ClientMeta;
}

/** Runs `work` as an audited change of the caller with the user row locked (serialising the user's wallet changes). */
async function asCaller<T>(deps: Deps, c: WalletCaller, work: (t: Queryable, record: RecordChange) => Promise<T>): Promise<T> {
  return audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), async (t, record) => {
    if (!(await wallets.lockUser(t, c.env.environmentId, c.principal.userId))) throw notFound("user");
    return work(t, record);
  });
}

/** The caller's embedded wallet, live or soft-deleted; 404 for any other. */
async function callersWallet(t: Queryable, c: WalletCaller, walletId: string) {
  const w = await embedded.findUserEmbeddedWallet(t, c.env.environmentId, c.principal.userId, walletId);
  if (!w) throw notFound("embedded wallet");
  return w;
}

/** New tokens for the caller's session after its wallets changed (in the change's transaction). */
const renewed = (deps: Deps, c: WalletCaller, t: Queryable) => renewSession(deps, c.principal, { q: t });

/** One embedded wallet per requested chain for the caller (each request's `chains` and `chain`, EVM when none). */
export async function createOwnEmbeddedWallets(deps: Deps, c: WalletCaller, requests: { chains: string[]; chain: string }[]) {
  const chains = chainsOf(requests.flatMap((r) => [...r.chains, ...(r.chain ? [r.chain] : [])]));
  return asCaller(deps, c, async (t, record) => {
    await createUserEmbeddedWallets(deps, t, c.env.environmentId, c.principal.userId, chains, record, { pregenerated: false });
    return renewed(deps, c, t);
  });
}

/**
 * Upgrades the caller's live V1 embedded wallets to V2 (their properties.version; the key stays as it is), one
 * audit row per wallet, and registers `sessionPublicKey` (when given) for the caller's session, all in one
 * transaction; 422 no_v1_embedded_wallet (nothing changed) when none is on V1. Answers new tokens.
 */
export async function upgradeOwnEmbeddedWalletsToV2(deps: Deps, c: WalletCaller, sessionPublicKey?: string) {
  if (sessionPublicKey) parseSessionKey(sessionPublicKey); // a malformed key refuses the call before anything changes
  return asCaller(deps, c, async (t, record) => {
    const upgraded = await embedded.upgradeWalletVersions(t, c.env.environmentId, c.principal.userId, "V1", "V2");
    if (!upgraded.length) throw unprocessable("no_v1_embedded_wallet", "the user has no embedded wallet on V1");
    for (const w of upgraded)
      await record({
        action: "embedded_wallet.upgraded",
        resourceType: "wallet",
        resourceId: w.id,
        before: { id: w.id, chain: w.chain, version: "V1" },
        after: { id: w.id, userId: c.principal.userId, chain: w.chain, version: "V2" },
      });
    if (sessionPublicKey) await registerSessionKey({ db: t }, c.principal, sessionPublicKey);
    return renewed(deps, c, t);
  });
}

/** Claims a wallet pregenerated for the caller; 404 when it is not the caller's, 409 when claimed already. */
export async function claimEmbeddedWallet(deps: Deps, c: WalletCaller, walletId: string) {
  return asCaller(deps, c, async (t, record) => {
    const w = await callersWallet(t, c, walletId);
    if (!w.pregenerated || w.deleted) throw notFound("pregenerated embedded wallet");
    if (!(await embedded.claimWallet(t, c.env.environmentId, c.principal.userId, w.id)))
      throw conflict("embedded_wallet_already_claimed", "this embedded wallet has been claimed already");
    await record({ action: "embedded_wallet.claimed", resourceType: "wallet", resourceId: w.id, after: { id: w.id, userId: c.principal.userId } });
    return renewed(deps, c, t);
  });
}

async function softDelete(t: Queryable, c: WalletCaller, record: RecordChange, walletId: string) {
  const w = await callersWallet(t, c, walletId);
  const wallet = w.deleted ? null : await wallets.findWallet(t, c.env.environmentId, w.id);
  if (!wallet) throw notFound("embedded wallet");
  await wallets.softDeleteWallet(t, c.env.environmentId, w.id);
  await record({ action: "wallet.deleted", resourceType: "wallet", resourceId: w.id, before: walletSnapshot(wallet) });
}

/** Soft-deletes one of the caller's live embedded wallets (its key is kept for a restore). */
export async function softDeleteEmbeddedWallet(deps: Deps, c: WalletCaller, walletId: string): Promise<void> {
  await asCaller(deps, c, (t, record) => softDelete(t, c, record, walletId));
}

/** Restores a soft-deleted embedded wallet of the caller; 409 when its chain has a live embedded wallet again. */
export async function restoreEmbeddedWallet(deps: Deps, c: WalletCaller, walletId: string): Promise<void> {
  await asCaller(deps, c, async (t, record) => {
    const w = await callersWallet(t, c, walletId);
    if (!w.deleted) throw conflict("embedded_wallet_not_deleted", "this embedded wallet is not deleted");
    const live = await wallets.embeddedWalletChains(t, c.env.environmentId, c.principal.userId);
    if (live.includes(w.chain) || (await wallets.addressLinked(t, c.env.environmentId, w.chain, w.address)))
      throw conflict("embedded_wallet_replaced", `the user has a live embedded wallet on ${w.chain} again`);
    await embedded.restoreWallet(t, c.env.environmentId, c.principal.userId, w.id);
    await record({ action: "wallet.recovered", resourceType: "wallet", resourceId: w.id, after: { id: w.id, userId: c.principal.userId, chain: w.chain } });
  });
}

/** The delete body for the client to sign: one live wallet of the caller, or (none named) all of them. */
export async function deleteRequestBody(deps: Deps, c: WalletCaller, walletId?: string) {
  const ids = walletId
    ? [(await embedded.findUserEmbeddedWallet(deps.db, c.env.environmentId, c.principal.userId, walletId))].filter((w) => w && !w.deleted).map((w) => w!.id)
    : await embedded.userEmbeddedWalletIds(deps.db, c.env.environmentId, c.principal.userId);
  if (!ids.length) throw notFound("embedded wallet");
  return activityBody(c.env.environmentId, DELETE_WALLETS, { walletIds: ids, deleteWithoutExport: true });
}

/** Deletes (soft) the caller's wallets a signed delete body names; the body is spent in the same transaction. */
export async function deleteEmbeddedWallets(deps: Deps, c: WalletCaller, signed: SignedRequest | undefined): Promise<void> {
  const { parameters, activity } = await openSignedRequest(deps, c.principal, signed, DELETE_WALLETS);
  const ids = parameters.walletIds ?? [];
  if (!Array.isArray(ids) || !ids.length || !ids.every((id) => typeof id === "string" && UUID.test(id))) throw badRequest("invalid_signed_request", "the body names no wallets");
  await asCaller(deps, c, async (t, record) => {
    await spendSignedRequest(t, c.principal, activity, null);
    for (const id of new Set(ids)) await softDelete(t, c, record, id);
  });
}

/** The create-account body for the client to sign: an account on `chain` beside the caller's first embedded wallet. */
export async function createAccountRequestBody(deps: Deps, c: WalletCaller, chain: string) {
  chainsOf([chain]);
  const [first] = await embedded.userEmbeddedWalletIds(deps.db, c.env.environmentId, c.principal.userId);
  if (!first) throw notFound("embedded wallet");
  const account =
    chain === "SOL"
      ? { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }
      : { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
  return activityBody(c.env.environmentId, CREATE_WALLET_ACCOUNTS, { walletId: first, accounts: [account] });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const CHAIN_OF_ADDRESS_FORMAT: Record<string, string> = { ADDRESS_FORMAT_ETHEREUM: "EVM", ADDRESS_FORMAT_SOLANA: "SOL" };

/** Adds the accounts a signed create-account body names: a new embedded wallet per chain (fresh keys). */
export async function createWalletAccount(deps: Deps, c: WalletCaller, signed: SignedRequest | undefined) {
  const { parameters, activity } = await openSignedRequest(deps, c.principal, signed, CREATE_WALLET_ACCOUNTS);
  const chains = (parameters.accounts ?? []).map((a) => CHAIN_OF_ADDRESS_FORMAT[a?.addressFormat] ?? "");
  if (!chains.length || chains.includes("")) throw badRequest("invalid_signed_request", "the body's accounts must have an EVM or Solana address format");
  if (typeof parameters.walletId !== "string" || !UUID.test(parameters.walletId))
    throw badRequest("invalid_signed_request", "the body must name the wallet the account is added beside");
  return asCaller(deps, c, async (t, record) => {
    await callersWallet(t, c, parameters.walletId!);
    await spendSignedRequest(t, c.principal, activity, parameters.walletId ?? null);
    await createUserEmbeddedWallets(deps, t, c.env.environmentId, c.principal.userId, chainsOf(chains), record, { pregenerated: false });
    return renewed(deps, c, t);
  });
}
