import { randomUUID } from "node:crypto";
import { ApplicationFailure } from "@temporalio/activity";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import type { Database, Queryable } from "../db/db.js";
import {
  currentSet,
  destroyRetiredShares,
  findSetByOperation,
  insertPendingSet,
  promoteSet,
  setShares,
  type ShareSetRecord,
} from "../db/repositories/waas-share-sets.js";
import type { Sealer } from "../crypto/seal.js";
import { signDigestWithShares } from "../crypto/threshold/ecdsa.js";
import { addressOf, newWalletSecret } from "../crypto/threshold/keys.js";
import { SCHEMES, groupPublicKey, refreshShares, splitSecret, type KeyShare, type ShareSetPublic, type ThresholdCurve } from "../crypto/threshold/shares.js";
import { decryptForHolder, encryptForHolder, openHolderKey } from "../domain/waas/holder-share.js";
import type { HolderKey, HolderShareInput, ShareSetView, WaasChain, WaasScheme } from "../domain/waas/share-operations.js";
import { DomainError, conflict, notFound, unprocessable } from "../errors.js";

/**
 * The WaaS wallet actor's activities (src/workflows/waas-wallet.ts): every step that touches key shares.
 * Each is idempotent by (walletId, operation id) or by the set it names, because Temporal retries it and a
 * worker may die (kill -9) between its write and its report: a retry finds what the first attempt did.
 * The server's share is sealed (associated data: set id + holder index); every other holder's share exists
 * here only encrypted to that holder, and is decrypted in the activity that needs it, never in workflow state.
 */

export interface WaasActivityDeps {
  db: Database;
  sealer: Sealer;
}

/** The server always holds share 1; the user's device 2; backups (2-of-3, 3-of-5) the next ones. */
export const SERVER_HOLDER_INDEX = 1;

export interface CreateShareSetActivityInput {
  environmentId: string;
  walletId: string;
  userId: string | null;
  chain: WaasChain;
  scheme: WaasScheme;
  operationId: string;
  holderKeys: HolderKey[];
}

export interface RefreshActivityInput {
  environmentId: string;
  walletId: string;
  operationId: string;
  holders: HolderShareInput[];
}

export interface SignDigestActivityInput {
  environmentId: string;
  walletId: string;
  /** 32-byte hex digest (EIP-191 / EIP-712 / transaction hash, computed by the caller). */
  digest: string;
  holder: HolderShareInput;
}

const CURVES: Record<WaasChain, ThresholdCurve> = { EVM: "secp256k1", SOL: "ed25519" };
const serverShareAad = (shareSetId: string, holderIndex: number) => `waas-share:${shareSetId}:${holderIndex}`;

export function createWaasActivities(deps: WaasActivityDeps) {
  return {
    /** A new wallet: its key is made, split and forgotten; the wallet row and a pending set are written together. */
    async createWaasShareSet(input: CreateShareSetActivityInput): Promise<ShareSetView & { address: string; publicKey: string }> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const done = await findSetByOperation(t, input.environmentId, input.walletId, input.operationId);
          if (done) return { ...(await view(t, input.environmentId, done)), ...(await walletKey(t, input.environmentId, input.walletId)) };
          const existing = await t.oneOrNone("SELECT 1 FROM waas_wallets WHERE id = $1", [input.walletId]);
          if (existing) throw conflict("wallet_exists", "the wallet already has a key");
          const { threshold, holders } = SCHEMES[input.scheme];
          const keys = holderKeysFor(deps.sealer, input.walletId, input.holderKeys, threshold, holders);
          const curve = CURVES[input.chain];
          const secret = newWalletSecret(curve);
          let split: { public: ShareSetPublic; shares: KeyShare[] };
          try {
            split = splitSecret(curve, secret, threshold, holders);
          } finally {
            secret.fill(0);
          }
          const publicKey = bytesToHex(groupPublicKey(split.public));
          const address = addressOf(curve, groupPublicKey(split.public));
          await t.none(
            `INSERT INTO waas_wallets (id, environment_id, user_id, chain, address, public_key, private_key_sealed)
             VALUES ($1, $2, $3, $4, $5, $6, NULL)`,
            [input.walletId, input.environmentId, input.userId, input.chain, address, publicKey],
          );
          const set = await writePendingSet(t, deps.sealer, input.environmentId, input.walletId, input.operationId, split, keys);
          return { ...(await view(t, input.environmentId, set)), address, publicKey };
        }),
      );
    },

    /** New shares of the same key (every holder's share is needed, so that no holder keeps an old one). */
    async refreshWaasShareSet(input: RefreshActivityInput): Promise<ShareSetView> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const done = await findSetByOperation(t, input.environmentId, input.walletId, input.operationId);
          if (done) return view(t, input.environmentId, done);
          const cur = await currentSet(t, input.environmentId, input.walletId);
          if (!cur) throw notFound("wallet");
          const keys = holderKeysFor(deps.sealer, input.walletId, input.holders, cur.threshold, cur.holders);
          const shares = await openShares(t, deps.sealer, cur, input.holders, cur.holders);
          const refreshed = refreshShares(publicOf(cur), shares);
          const set = await writePendingSet(t, deps.sealer, input.environmentId, input.walletId, input.operationId, refreshed, keys);
          return view(t, input.environmentId, set);
        }),
      );
    },

    /** The set becomes current and the previous one retired, in one transaction (idempotent). */
    async promoteWaasShareSet(input: { environmentId: string; walletId: string; shareSetId: string }): Promise<{ retiredSetIds: string[] }> {
      return failFast(async () => {
        const r = await promoteSet(deps.db, input.environmentId, input.walletId, input.shareSetId);
        if (!r.promoted) throw conflict("share_set_superseded", "the share set was retired before it became current");
        return { retiredSetIds: r.retiredSetIds };
      });
    },

    /** Destroys the shares of the wallet's retired sets (idempotent): old shares become useless for good. */
    async destroyRetiredWaasShares(input: { environmentId: string; walletId: string }): Promise<{ destroyed: number }> {
      return { destroyed: await destroyRetiredShares(deps.db, input.environmentId, input.walletId) };
    },

    /**
     * An ECDSA signature of an EVM digest with the current set. No usable open threshold-ECDSA library exists
     * (docs/decisions.md): the shares are combined in this activity's memory only, used and wiped. Stateless
     * and deterministic (RFC 6979), so a retry signs the same way.
     */
    async signWaasDigest(input: SignDigestActivityInput): Promise<{ signature: string; r: string; s: string; recovery: number }> {
      return failFast(async () => {
        const cur = await currentSet(deps.db, input.environmentId, input.walletId);
        if (!cur) throw notFound("wallet");
        if (cur.curve !== "secp256k1") throw unprocessable("unsupported_chain", "this wallet does not sign EVM digests");
        if (!/^(0x)?[0-9a-fA-F]{64}$/.test(input.digest)) throw unprocessable("invalid_digest", "a digest is 32 bytes of hex");
        const shares = await openShares(deps.db, deps.sealer, cur, [input.holder], cur.threshold);
        return signDigestWithShares(publicOf(cur), shares, hexToBytes(input.digest.replace(/^0x/, "")));
      });
    },
  };
}

/** Bad input or state never gets better by retrying: DomainErrors become non-retryable failures (code = type). */
async function failFast<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    throw ApplicationFailure.create({
      message: err.message,
      type: err.code,
      nonRetryable: true,
      details: [{ kind: err.kind, code: err.code, payload: err.payload }],
    });
  }
}

/** One key per holder but the server, for exactly the scheme's holders. */
function holderKeysFor(sealer: Sealer, walletId: string, given: HolderKey[], threshold: number, holders: number): Map<number, Buffer> {
  const keys = new Map<number, Buffer>();
  for (const h of given) {
    if (!Number.isInteger(h.holderIndex) || h.holderIndex <= SERVER_HOLDER_INDEX || h.holderIndex > holders || keys.has(h.holderIndex)) {
      throw unprocessable("invalid_holder", `holder ${h.holderIndex} is not a holder of this ${threshold}-of-${holders} scheme`);
    }
    keys.set(h.holderIndex, openHolderKey(sealer, walletId, h.holderIndex, h.sealedKey));
  }
  if (keys.size !== holders - 1) throw unprocessable("missing_holder_key", `every holder but the server needs a key (${holders - 1})`);
  return keys;
}

async function writePendingSet(
  t: Queryable,
  sealer: Sealer,
  environmentId: string,
  walletId: string,
  operationId: string,
  split: { public: ShareSetPublic; shares: KeyShare[] },
  keys: Map<number, Buffer>,
): Promise<ShareSetRecord> {
  const id = randomUUID();
  const shares = split.shares.map((s) =>
    s.index === SERVER_HOLDER_INDEX
      ? { holderIndex: s.index, shareSealed: sealer.seal(s.value, serverShareAad(id, s.index)) }
      : { holderIndex: s.index, encryptedForHolder: encryptForHolder(keys.get(s.index)!, id, s.index, s.value) },
  );
  const { set } = await insertPendingSet(t, environmentId, {
    id,
    walletId,
    operationId,
    curve: split.public.curve,
    threshold: split.public.threshold,
    holders: split.public.holders,
    commitments: split.public.commitments,
    shares,
  });
  return set;
}

/** The server's share and the given holders' shares of `set`, opened; at least `needed` of them. */
async function openShares(q: Queryable, sealer: Sealer, set: ShareSetRecord, holders: HolderShareInput[], needed: number): Promise<KeyShare[]> {
  const stored = await setShares(q, set.environmentId, set.id);
  const server = stored.find((s) => s.holderIndex === SERVER_HOLDER_INDEX);
  if (!server?.shareSealed) throw unprocessable("server_share_missing", "the server's key share of this wallet is gone");
  const shares: KeyShare[] = [{ index: SERVER_HOLDER_INDEX, value: sealer.open(server.shareSealed, serverShareAad(set.id, SERVER_HOLDER_INDEX)) }];
  for (const h of holders) {
    if (h.holderIndex === SERVER_HOLDER_INDEX || shares.some((s) => s.index === h.holderIndex)) {
      throw unprocessable("invalid_holder", `holder ${h.holderIndex} cannot be given here`);
    }
    shares.push({ index: h.holderIndex, value: decryptForHolder(openHolderKey(sealer, set.walletId, h.holderIndex, h.sealedKey), set.id, h.holderIndex, h.encryptedShare) });
  }
  if (shares.length < needed) throw unprocessable("not_enough_key_shares", `${needed} shares are needed, ${shares.length} were given`);
  return shares;
}

async function view(q: Queryable, environmentId: string, set: ShareSetRecord): Promise<ShareSetView> {
  const stored = await setShares(q, environmentId, set.id);
  return {
    shareSetId: set.id,
    epoch: set.epoch,
    curve: set.curve,
    threshold: set.threshold,
    holders: set.holders,
    commitments: set.commitments,
    encryptedShares: stored.flatMap((s) => (s.encryptedForHolder ? [{ holderIndex: s.holderIndex, encryptedShare: s.encryptedForHolder }] : [])),
  };
}

async function walletKey(q: Queryable, environmentId: string, walletId: string): Promise<{ address: string; publicKey: string }> {
  const row = await q.one("SELECT address, public_key FROM waas_wallets WHERE environment_id = $1 AND id = $2", [environmentId, walletId]);
  return { address: row.address, publicKey: row.public_key };
}

function publicOf(set: ShareSetRecord): ShareSetPublic {
  return { curve: set.curve as ThresholdCurve, threshold: set.threshold, holders: set.holders, commitments: set.commitments };
}
