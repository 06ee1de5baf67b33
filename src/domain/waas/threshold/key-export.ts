import { bytesToHex } from "@noble/curves/utils.js";
import type { JWK } from "jose";
import { encryptForExport } from "../../../crypto/envelopes.js";
import { combineShares } from "../../../crypto/threshold/shares.js";
import { finishRoom } from "../../../db/repositories/waas-rooms.js";
import { currentSet } from "../../../db/repositories/waas-share-sets.js";
import { thresholdWalletKey } from "../../../db/repositories/waas-threshold-wallets.js";
import { badRequest, conflict, notFound } from "../../../errors.js";
import { recordChange } from "../../audit/audit.js";
import type { Deps } from "../../deps.js";
import { openShares, publicOf, roomAccess, roomFor } from "./share-sets.js";

/**
 * The export of a threshold wallet's key (workflow wallet-export/<walletId>/<exportId>, started by the
 * wallet's actor): the server's share and the device's (sent into the room encrypted to the room's key) are
 * combined in memory, the key is encrypted at once to the one-time P-256 key the device sent (JWE, ECDH-ES +
 * A256GCM), and the combined bytes are wiped. The room's result, the audit row and the wallet.exported event
 * are written in one transaction; an export id serves once (a unique index over export rooms), and a retried
 * step finds the room done and does nothing twice.
 */
export async function exportRoomKey(deps: Pick<Deps, "db" | "sealer">, input: { environmentId: string; walletId: string; roomId: string }): Promise<void> {
  await deps.db.tx(async (t) => {
    const room = await roomFor(t, input.environmentId, input.walletId, input.roomId, ["export"]);
    if (room.status === "done") return;
    if (room.status !== "contributed") throw conflict("room_closed", "the room is not waiting to export");
    const set = await currentSet(t, input.environmentId, input.walletId);
    if (!set) throw notFound("wallet");
    if (room.shareSetId !== set.id) throw conflict("room_stale", "the wallet's key shares changed after this room opened: open a new one");
    const exportKey = room.contribution?.exportKey;
    if (typeof exportKey !== "object" || exportKey === null) throw badRequest("invalid_export_key", "the contribution lacks exportKey (a P-256 public JWK)");
    const shares = await openShares(t, deps.sealer, set, room, set.threshold);
    const key = combineShares(publicOf(set), shares);
    const wallet = await thresholdWalletKey(t, input.environmentId, input.walletId);
    let encryptedKey: string;
    try {
      // Solana: the ed25519 secret scalar (an expanded key; src/crypto/threshold/keys.ts says why not a seed).
      const plaintext = JSON.stringify({ chain: wallet.chain, address: wallet.address, publicKey: wallet.publicKey, privateKey: bytesToHex(key) });
      encryptedKey = await encryptForExport(exportKey as JWK, new TextEncoder().encode(plaintext));
    } finally {
      key.fill(0);
    }
    const exportId = String(room.request.exportId);
    await finishRoom(t, input.environmentId, input.roomId, { result: { exportId, encryptedKey } });
    await recordChange(t, roomAccess(room), {
      action: "wallet.exported",
      resourceType: "wallet",
      resourceId: input.walletId,
      after: { userId: room.userId, chain: wallet.chain, address: wallet.address, exportId },
    });
  });
}
