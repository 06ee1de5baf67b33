import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { issueBackupToken } from "../../domain/waas/threshold/backup-token.js";
import * as backups from "../../domain/waas/threshold/device-backups.js";
import * as own from "../../domain/own-account/service.js";
import { SdkWaasBackupService } from "../../gen/sigil/waas/v0/sdk_waas_backup_service_pb.js";
import { waasCallerOf } from "../waas-sdk/handlers.js";
import { toUserView } from "../users/mappers.js";


export function registerSdkWaasBackup(router: ConnectRouter, deps: Deps): void {
  router.service(SdkWaasBackupService, {
    async backupKeyShares(req, ctx) {
      const input = { encryptedAccountCredentials: req.encryptedAccountCredentials, passwordEncrypted: req.passwordEncrypted };
      return { keyShares: await backups.backupKeyShares(deps, waasCallerOf(ctx), req.walletId, input) };
    },
    async backupKeySharesToCloudDrive(req, ctx) {
      const input = {
        encryptedAccountCredentials: req.encryptedAccountCredentials,
        passwordEncrypted: req.passwordEncrypted,
        accessToken: req.accessToken,
        backupToken: req.backupToken,
      };
      return { keyShares: await backups.backupKeySharesToCloudDrive(deps, waasCallerOf(ctx), req.walletId, input) };
    },
    async backupKeySharesToLocation(req, ctx) {
      return backups.backupKeySharesToLocation(deps, waasCallerOf(ctx), req.walletId, req.location);
    },
    async backupKeySharesToLocations(req, ctx) {
      const locations = req.locations.map((l) => ({
        location: l.location,
        ...(l.keygenId ? { keygenId: l.keygenId } : {}),
        ...(l.externalKeyShareId ? { externalKeyShareId: l.externalKeyShareId } : {}),
        ...(l.encryptedAccountCredential ? { credential: { encryptedAccountCredential: l.encryptedAccountCredential, passwordEncrypted: l.passwordEncrypted } } : {}),
      }));
      return backups.backupKeySharesToLocations(deps, waasCallerOf(ctx), req.walletId, locations);
    },
    async recoverKeyShares(req, ctx) {
      const input = { keyShareIds: req.keyShareIds, ...(req.accessToken ? { accessToken: req.accessToken } : {}), ...(req.backupToken ? { backupToken: req.backupToken } : {}) };
      return { keyShares: await backups.recoverKeyShares(deps, waasCallerOf(ctx), req.walletId, input) };
    },
    async getBackupToken(_req, ctx) {
      return { token: await issueBackupToken(deps, waasCallerOf(ctx)) };
    },
    async getWaasWalletWithVerifiedCredentials(req, ctx) {
      const caller = waasCallerOf(ctx);
      const wallet = await backups.callerWalletByAddress(deps, caller, req.walletAddress);
      const view = toUserView(await own.getOwnUser(deps, { env: caller.env, principal: caller.principal, requestId: caller.meta.requestId }));
      // The user as the users endpoint shows it, with only this wallet among its credentials.
      return { user: { ...view, verifiedCredentials: view.verifiedCredentials.filter((vc) => vc.format === "blockchain" && vc.address === wallet.address) } };
    },
    async updateWaasWalletSettings(req, ctx) {
      return backups.updateWaasWalletSettings(deps, waasCallerOf(ctx), req.walletId, req.hasDeniedDelegatedAccess);
    },
    async deliverDelegatedShare(req, ctx) {
      const e = req.encryptedDelegatedShare!;
      const envelope = { alg: e.alg, iv: e.iv, ct: e.ct, tag: e.tag, ek: e.ek, ...(e.kid ? { kid: e.kid } : {}) };
      return backups.deliverDelegatedShare(deps, waasCallerOf(ctx), req.walletId, envelope);
    },
    async getDelegatedAccessEncryptionPublicKey(_req, ctx) {
      return backups.delegatedAccessKey(deps, waasCallerOf(ctx));
    },
  });
}
