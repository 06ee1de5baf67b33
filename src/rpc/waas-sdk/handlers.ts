import type { ConnectRouter } from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import type { Deps } from "../../domain/deps.js";
import type { WaasCaller } from "../../domain/waas/threshold/device-caller.js";
import {
  contribute,
  createWaasAccount,
  exportPrivateKey,
  importPrivateKey,
  readRoom,
  refreshKeyShares,
  reserveRooms,
  reshare,
  signMessage,
  type OpenedRoom,
} from "../../domain/waas/threshold/device-operations.js";
import type { RoomRecord } from "../../domain/waas/threshold/rooms.js";
import type { SignMessageInput } from "../../domain/waas/threshold/device-signing.js";
import { SdkWaasService } from "../../gen/sigil/waas/v0/sdk_waas_service_pb.js";
import { MFA_TOKEN_HEADER, clientMetaOf, endUserOf } from "../context.js";
import { ts } from "../mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

type Ctx = Parameters<typeof clientMetaOf>[0];

/** The caller of a WaaS operation (also the backup operations', src/rpc/waas-backup-sdk). */
export const waasCallerOf = (ctx: Ctx): WaasCaller => ({
  env: publicEnvironmentOf(ctx),
  principal: endUserOf(ctx),
  meta: clientMetaOf(ctx),
  mfaToken: ctx.requestHeader.get(MFA_TOKEN_HEADER),
});

const openRoom = (r: OpenedRoom) => ({ room: { roomId: r.roomId, serverKeygenIds: r.serverKeygenIds, walletId: r.walletId } });

/** A room as the device reads it; the audit context the service keeps with the request stays inside. */
function toRoom(r: RoomRecord) {
  const { audit: _audit, ...request } = r.request;
  return {
    room: {
      roomId: r.id,
      walletId: r.walletId ?? "",
      operation: r.operation,
      status: r.status,
      serverKeygenIds: [r.serverKeygenId],
      request: request as JsonObject,
      serverCommitments: r.serverCommitments ?? {},
      ...(r.result ? { result: r.result as JsonObject } : {}),
      ...(r.error ? { error: { error: r.error.message, code: r.error.code, ...(r.error.payload ? { payload: r.error.payload } : {}) } as unknown as JsonObject } : {}),
      expiresAt: ts(r.expiresAt),
    },
  };
}

export function registerSdkWaas(router: ConnectRouter, deps: Deps): void {
  router.service(SdkWaasService, {
    async createWaasAccount(req, ctx) {
      const input = { chain: req.chain, clientKeygenIds: req.clientKeygenIds, thresholdSignatureScheme: req.thresholdSignatureScheme };
      return openRoom(await createWaasAccount(deps, waasCallerOf(ctx), input));
    },
    async importPrivateKey(req, ctx) {
      const input = { chain: req.chain, clientKeygenIds: req.clientKeygenIds, thresholdSignatureScheme: req.thresholdSignatureScheme };
      return openRoom(await importPrivateKey(deps, waasCallerOf(ctx), input));
    },
    async signMessage(req, ctx) {
      const input = {
        message: req.message,
        isFormatted: req.isFormatted,
        ...(req.context ? { context: req.context as SignMessageInput["context"] } : {}),
        ...(req.roomId ? { roomId: req.roomId } : {}),
      };
      return openRoom(await signMessage(deps, waasCallerOf(ctx), req.walletId, input));
    },
    async refreshKeyShares(req, ctx) {
      return openRoom(await refreshKeyShares(deps, waasCallerOf(ctx), req.walletId));
    },
    async reshare(req, ctx) {
      const r = await reshare(deps, waasCallerOf(ctx), req.walletId, {
        clientKeygenIds: req.clientKeygenIds,
        oldThresholdSignatureScheme: req.oldThresholdSignatureScheme,
        newThresholdSignatureScheme: req.newThresholdSignatureScheme,
      });
      return { room: { roomId: r.roomId, serverKeygenIds: r.serverKeygenIds, newServerKeygenIds: r.newServerKeygenIds, walletId: r.walletId } };
    },
    async exportPrivateKey(req, ctx) {
      return openRoom(await exportPrivateKey(deps, waasCallerOf(ctx), req.walletId, { exportId: req.exportId }));
    },
    async createRooms(req, ctx) {
      return { roomIds: await reserveRooms(deps, waasCallerOf(ctx), { walletId: req.walletId, roomType: req.roomType, ...(req.roomCount !== undefined ? { roomCount: req.roomCount } : {}) }) };
    },
    async createRoomsWithoutWalletId(req, ctx) {
      const input = { walletId: null, roomType: req.roomType, thresholdSignatureScheme: req.thresholdSignatureScheme, ...(req.roomCount !== undefined ? { roomCount: req.roomCount } : {}) };
      return { roomIds: await reserveRooms(deps, waasCallerOf(ctx), input) };
    },
    async getWaasRoom(req, ctx) {
      return toRoom(await readRoom(deps, waasCallerOf(ctx), req.roomId));
    },
    async contributeToWaasRoom(req, ctx) {
      return toRoom(await contribute(deps, waasCallerOf(ctx), req.roomId, (req.contribution ?? {}) as Record<string, unknown>));
    },
  });
}
