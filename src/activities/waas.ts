import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import type { Database } from "../db/db.js";
import { findRoom, finishRoom } from "../db/repositories/waas-rooms.js";
import { currentSet, destroyRetiredShares, findSetByOperation, listSets, promoteSet } from "../db/repositories/waas-share-sets.js";
import { insertThresholdWallet, thresholdWalletKey, walletIdTaken } from "../db/repositories/waas-threshold-wallets.js";
import { insertWallet } from "../db/repositories/wallets.js";
import type { Sealer } from "../crypto/seal.js";
import { addressOf, importedSecret, newWalletSecret } from "../crypto/threshold/keys.js";
import { SCHEMES, groupPublicKey, refreshShares, reshareSecret, splitSecret, type KeyShare, type ShareSetPublic } from "../crypto/threshold/shares.js";
import { recordChange } from "../domain/audit/audit.js";
import { openRoomParts, type RoomRecord } from "../domain/waas/threshold/rooms.js";
import type { WaasChain, WaasScheme } from "../domain/waas/threshold/share-operations.js";
import { conflict, notFound, unprocessable } from "../errors.js";
import { CURVES, failFast, keygenIdsOf, openShares, publicOf, roomAccess, roomFor, viewOf, writePendingSet } from "./waas-shares.js";

/**
 * The WaaS wallet actor's share-set activities (src/workflows/waas-wallet.ts): keygen, import, refresh and
 * reshare write a new pending set; promotion makes it current and retires the previous; the retired shares
 * are then destroyed; the room gets the result. Each is idempotent by (wallet, operation id) or by the set it
 * names, because Temporal retries it and a worker may die (kill -9) between its write and its report: a retry
 * finds what the first attempt did. Every secret an activity needs is read from the database (the room's
 * contribution, encrypted to the room's key; the server's sealed share), never from its input.
 */

export interface WaasActivityDeps {
  db: Database;
  sealer: Sealer;
}

interface RoomStep {
  environmentId: string;
  walletId: string;
  roomId: string;
}

/** The wallet as the client's verified credential shows it (the wallets row has the WaaS wallet's id). */
export const WAAS_WALLET_NAME = "dynamicwaas";

export function createWaasActivities(deps: WaasActivityDeps) {
  return {
    /** A new pending share set for the room's operation (keygen, import, refresh, reshare). */
    async writeRoomShareSet(input: RoomStep & { operationId: string }): Promise<{ shareSetId: string }> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const done = await findSetByOperation(t, input.environmentId, input.walletId, input.operationId);
          if (done) return { shareSetId: done.id };
          const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, ["keygen", "import", "refresh", "reshare"]);
          if (room.status === "done" || room.status === "failed") throw conflict("room_closed", "the room has already finished");
          if (room.operation === "keygen" || room.operation === "import") {
            if (await walletIdTaken(t, room.walletId!)) throw conflict("wallet_exists", "the wallet already has a key");
            const chain = room.request.chain as WaasChain;
            const { threshold, holders } = SCHEMES[room.request.scheme as WaasScheme];
            const keygenIds = keygenIdsOf(room, holders);
            const curve = CURVES[chain];
            const secret = room.operation === "keygen" ? newWalletSecret(curve) : await importedKey(t, deps.sealer, room, curve);
            let split: { public: ShareSetPublic; shares: KeyShare[] };
            try {
              split = splitSecret(curve, secret, threshold, holders);
            } finally {
              secret.fill(0);
            }
            await insertWalletRows(t, room, chain, split.public);
            return { shareSetId: (await writePendingSet(t, deps.sealer, room, input.operationId, split, keygenIds)).id };
          }
          const cur = await currentSet(t, input.environmentId, input.walletId);
          if (!cur) throw notFound("wallet");
          if (room.shareSetId !== cur.id) throw conflict("room_stale", "the wallet's key shares changed after this room opened: open a new one");
          if (room.operation === "refresh") {
            // Every holder's share: a holder left out would keep a share of the old set.
            const shares = await openShares(t, deps.sealer, cur, room, cur.holders);
            const refreshed = refreshShares(publicOf(cur), shares);
            return { shareSetId: (await writePendingSet(t, deps.sealer, room, input.operationId, refreshed, keygenIdsOf(room, cur.holders))).id };
          }
          const next = SCHEMES[room.request.newScheme as WaasScheme];
          const shares = await openShares(t, deps.sealer, cur, room, cur.threshold);
          const reshared = reshareSecret(publicOf(cur), shares, next.threshold, next.holders);
          return { shareSetId: (await writePendingSet(t, deps.sealer, room, input.operationId, reshared, keygenIdsOf(room, next.holders))).id };
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

    /** The room's result (the wallet and the device's new shares), audited with it, once. */
    async completeRoomShareSet(input: RoomStep & { shareSetId: string }): Promise<void> {
      return failFast(() =>
        deps.db.tx(async (t) => {
          const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, ["keygen", "import", "refresh", "reshare"]);
          if (room.status === "done") return;
          const set = (await listSets(t, input.environmentId, input.walletId)).find((s) => s.id === input.shareSetId);
          if (!set) throw notFound("share set");
          const wallet = await thresholdWalletKey(t, input.environmentId, input.walletId);
          const result = { walletId: input.walletId, ...wallet, shareSet: await viewOf(t, input.environmentId, set) };
          await finishRoom(t, input.environmentId, input.roomId, { result });
          await recordChange(t, roomAccess(room), {
            action: ACTIONS[room.operation]!,
            resourceType: "waas_wallet",
            resourceId: input.walletId,
            after: { userId: room.userId, chain: wallet.chain, address: wallet.address, epoch: set.epoch, threshold: set.threshold, holders: set.holders },
          });
        }),
      );
    },

    /** A failed operation's error, written into its room for the device to read (once; idempotent). */
    async failRoom(input: { environmentId: string; roomId: string; error: { kind: string; code: string; message: string; payload?: unknown } }): Promise<void> {
      const room = await findRoom(deps.db, input.environmentId, input.roomId);
      if (room) await finishRoom(deps.db, input.environmentId, input.roomId, { error: input.error });
    },
  };
}

const ACTIONS: Partial<Record<RoomRecord["operation"], string>> = {
  keygen: "waas_wallet.created",
  import: "waas_wallet.imported",
  refresh: "waas_wallet.refreshed",
  reshare: "waas_wallet.reshared",
};

/** The imported key the device sent in the room (a JWE to the room's key, hex inside), as the secret to split. */
async function importedKey(t: Parameters<typeof openRoomParts>[0], sealer: Sealer, room: RoomRecord, curve: (typeof CURVES)[WaasChain]): Promise<Uint8Array> {
  const [opened] = await openRoomParts(t, sealer, room, [{ part: "privateKey", jwe: room.contribution?.privateKey }]);
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(new TextDecoder().decode(opened).replace(/^0x/, ""));
  } catch {
    throw unprocessable("invalid_private_key", "the imported key is not hex");
  } finally {
    opened.fill(0);
  }
  try {
    return importedSecret(curve, bytes);
  } finally {
    bytes.fill(0);
  }
}

/** The wallet rows: the threshold wallet (no whole key) and the user's verified credential for it. */
async function insertWalletRows(t: Parameters<typeof insertWallet>[0], room: RoomRecord, chain: WaasChain, pub: ShareSetPublic): Promise<void> {
  const publicKey = bytesToHex(groupPublicKey(pub));
  const address = addressOf(pub.curve, groupPublicKey(pub));
  try {
    await insertThresholdWallet(t, room.environmentId, { id: room.walletId!, userId: room.userId, chain, address, publicKey });
    await insertWallet(t, room.environmentId, room.userId, {
      id: room.walletId!,
      name: WAAS_WALLET_NAME,
      chain,
      address,
      provider: "embeddedWallet",
      properties: { version: "V3", thresholdSignatureScheme: room.request.scheme, publicKey },
    });
  } catch (err) {
    // An imported key already in use in this environment: the same address twice would be two owners.
    if ((err as { code?: string }).code === "23505") throw conflict("wallet_exists", "a wallet with this address already exists in this environment");
    throw err;
  }
}
