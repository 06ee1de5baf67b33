import type { ConnectRouter } from "@connectrpc/connect";
import { WaasService } from "../../gen/sigil/waas/v0/waas_service_pb.js";
import type { EncryptionKeyRecord } from "../../db/repositories/encryption-keys.js";
import type { KeyShareBackupRecord, WaasWalletRecord } from "../../db/repositories/waas-wallets.js";
import type { WaasPolicyRecord } from "../../db/repositories/waas.js";
import type { Deps } from "../../domain/deps.js";
import { environmentAccess } from "../../domain/tenancy/access.js";
import * as keys from "../../domain/waas/service.js";
import * as policy from "../../domain/waas/policy.js";
import * as session from "../../domain/waas/session.js";
import * as wallets from "../../domain/waas/wallets.js";
import { pageOf } from "../paging.js";
import { orNull, str, ts } from "../mappers.js";

const toKey = (k: EncryptionKeyRecord) => ({
  id: k.id,
  publicKey: k.publicKey,
  kid: k.kid,
  alg: k.alg,
  type: k.type,
  createdAt: ts(k.createdAt),
  updatedAt: ts(k.updatedAt),
});

const toBackup = (b: KeyShareBackupRecord) => ({
  id: b.id,
  walletId: b.walletId,
  location: b.location,
  externalKeyShareId: b.externalKeyShareId,
  createdAt: ts(b.createdAt),
  updatedAt: ts(b.updatedAt),
});

const toWallet = (w: WaasWalletRecord, backups: KeyShareBackupRecord[] = []) => ({
  id: w.id,
  userId: str(w.userId),
  name: str(w.name),
  chain: w.chain,
  address: w.address,
  publicKey: w.publicKey,
  delegatedAccess: {
    active: wallets.delegatedAccessActive(w),
    grantedAt: ts(w.delegatedAccessGrantedAt),
    revokedAt: ts(w.delegatedAccessRevokedAt),
  },
  keyShareBackups: backups.map(toBackup),
  createdAt: ts(w.createdAt),
  updatedAt: ts(w.updatedAt),
});

const toPolicy = (p: WaasPolicyRecord) => ({
  id: p.id,
  rules: p.rules.map((r) => ({ ...r, maxValue: str(r.maxValue) })),
  createdAt: ts(p.createdAt),
  updatedAt: ts(p.updatedAt),
});

export function registerWaas(router: ConnectRouter, deps: Deps) {
  router.service(WaasService, {
    async createDelegatedCredentials(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { key: toKey(await keys.registerEncryptionKey(deps, access, req)) };
    },
    async getDelegatedAccessEncryptionPublicKeys(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { keys: list, count } = await keys.listEncryptionKeysPage(deps, access, pageOf(req));
      return { keys: list.map(toKey), count };
    },
    async getDelegatedAccessEncryptionPublicKeyById(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { key: toKey(await keys.getEncryptionKey(deps, access, req.keyId)) };
    },
    async authenticateWaas(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { token, expiresAt } = await session.authenticateWaas(deps, access);
      return { token, expiresAt: ts(expiresAt) };
    },
    async createWaasWallet(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const w = await wallets.createWaasWallet(deps, access, {
        chain: req.chain as "EVM" | "SOL",
        userId: orNull(req.userId),
        name: orNull(req.name),
        delegatedAccess: req.delegatedAccess ?? true,
      });
      return { wallet: toWallet(w) };
    },
    async getWaasWalletByWalletId(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const { wallet, backups } = await wallets.getWaasWallet(deps, access, req.walletId);
      return { wallet: toWallet(wallet, backups) };
    },
    async getWaasPolicy(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { policy: toPolicy(await policy.getPolicy(deps, access)) };
    },
    async createWaasPolicy(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { policy: toPolicy(await policy.createPolicy(deps, access, req.rules)) };
    },
    async updateWaasPolicy(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { policy: toPolicy(await policy.updatePolicy(deps, access, req.rules)) };
    },
    async deleteWaasPolicy(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      await policy.deletePolicy(deps, access);
      return {};
    },
    async verifyApiKey(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { valid: await session.verifyApiKey(deps, access, req.apiKey) };
    },
    async revokeDelegatedAccess(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const res = await wallets.revokeDelegatedAccess(deps, access, { walletIds: req.walletIds, userId: orNull(req.userId) });
      return { wallets: res.wallets.map((w) => toWallet(w)), revokedCount: res.revokedCount };
    },
    async deleteDelegatedAccess(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      await wallets.revokeWalletDelegatedAccess(deps, access, req.walletId);
      return {};
    },
    async delegatedSignMessage(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      return { signature: await wallets.signWithDelegatedAccess(deps, access, req.walletId, req.message) };
    },
    async backupKeySharesToLocationsForPregen(req, ctx) {
      const access = await environmentAccess(deps, ctx, req.environmentId);
      const stored = await wallets.recordKeyShareBackups(
        deps,
        access,
        req.walletId,
        req.locations.map((l) => ({ location: l.location, externalKeyShareId: l.externalKeyShareId })),
      );
      return { locations: stored.map(toBackup) };
    },
  });
}
