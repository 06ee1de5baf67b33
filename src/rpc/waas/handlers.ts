import type { ConnectRouter } from "@connectrpc/connect";
import { WaasService } from "../../gen/sigil/waas/v0/waas_service_pb.js";
import type { WaasPolicyRuleInput } from "../../gen/sigil/waas/v0/waas_pb.js";
import type { EncryptionKeyRecord } from "../../db/repositories/encryption-keys.js";
import type { KeyShareBackupRecord, WaasWalletRecord } from "../../db/repositories/waas-wallets.js";
import type { WaasPolicyRecord } from "../../db/repositories/waas.js";
import type { Deps } from "../../domain/deps.js";
import { toClientChain } from "../../domain/waas/chain-names.js";
import * as keys from "../../domain/waas/encryption-keys.js";
import * as policy from "../../domain/waas/policy.js";
import * as session from "../../domain/waas/custodial/session.js";
import * as wallets from "../../domain/waas/custodial/wallets.js";
import * as users from "../../domain/users/service.js";
import { badRequest } from "../../errors.js";
import { pageOf } from "../paging.js";
import { toUserView } from "../users/mappers.js";
import { orNull, str, ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

const toKey = (k: EncryptionKeyRecord) => ({
  id: k.id,
  projectEnvironmentId: k.environmentId,
  publicKeyPemB64: Buffer.from(k.publicKey, "utf8").toString("base64"),
  status: k.status,
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
  walletId: w.id,
  accountAddress: w.address,
  chainName: toClientChain(w.chain),
  // The service holds each key whole, which no scheme of the client names; its smallest is answered so that
  // client code parses every WaaS wallet (docs/decisions.md, "Management-created WaaS wallets").
  thresholdSignatureScheme: "TWO_OF_TWO",
  // Keys are generated at random, not derived from a seed.
  derivationPath: "",
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

/** The published client's WaasPolicyResponse; chain SOL is the client's SVM. */
const toPolicy = (p: WaasPolicyRecord, message: string) => ({
  policyId: p.id,
  projectEnvironmentId: p.environmentId,
  policyContent: p.rules.map((r) => ({
    ruleId: r.ruleId,
    name: r.name,
    ruleType: r.ruleType,
    chain: toClientChain(r.chain),
    chainIds: r.chainIds,
    addresses: r.addresses,
    valueLimit: r.maxPerCall === null ? undefined : { maxPerCall: r.maxPerCall },
    methods: r.methods,
  })),
  createdAt: ts(p.createdAt),
  updatedAt: ts(p.updatedAt),
  message,
});

/**
 * A rule of a request in the domain's terms: the client's names and Sigil's earlier ones (type, chains,
 * maxValue) merged, the client's earlier chainId joined to chainIds, and the client's conditions the
 * service cannot enforce listed by name when given.
 */
function toRuleInput(r: WaasPolicyRuleInput): policy.PolicyRuleInput {
  const unsupported = [
    r.contractAbi.length > 0 && "contractAbi",
    r.functionName !== "" && "functionName",
    r.argumentConstraints.length > 0 && "argumentConstraints",
    !!r.valueLimit?.asset && "valueLimit.asset",
    !!r.valueLimit?.totalLimit && "valueLimit.totalLimit",
    !!r.operationRestrictions &&
      (r.operationRestrictions.blockExport || r.operationRestrictions.blockRevocation || r.operationRestrictions.blockClientSigning) &&
      "operationRestrictions",
  ].filter((x): x is string => typeof x === "string");
  return {
    ruleId: r.ruleId,
    name: r.name,
    ruleType: r.ruleType || r.type,
    chains: [...(r.chain ? [r.chain] : []), ...r.chains],
    chainIds: [...(r.chainId !== undefined ? [r.chainId] : []), ...r.chainIds].map(Number),
    addresses: [...(r.address ? [r.address] : []), ...r.addresses],
    maxPerCall: r.valueLimit?.maxPerCall || r.maxValue,
    methods: r.methods,
    unsupported,
  };
}

/** The rules of a request that may give them under the client's name or Sigil's earlier one (not both). */
function rulesOf(clientName: string, client: WaasPolicyRuleInput[], earlier: WaasPolicyRuleInput[]) {
  if (client.length && earlier.length) throw badRequest("ambiguous_rules", `give ${clientName} or rules, not both`, { field: "rules" });
  if (earlier.length) return { list: "rules", rules: earlier.map(toRuleInput), earlier: true };
  return { list: clientName, rules: client.map(toRuleInput), earlier: false };
}

export function registerWaas(router: ConnectRouter, deps: Deps) {
  router.service(WaasService, {
    async createDelegatedCredentials(req, ctx) {
      const access = environmentOf(ctx);
      return { key: toKey(await keys.registerEncryptionKey(deps, access, req)) };
    },
    async getDelegatedAccessEncryptionPublicKeys(req, ctx) {
      const access = environmentOf(ctx);
      const { keys: list, count } = await keys.listEncryptionKeysPage(deps, access, pageOf(req));
      return { keys: list.map(toKey), count, message: `${count} encryption public key(s)` };
    },
    async getDelegatedAccessEncryptionPublicKeyById(req, ctx) {
      const access = environmentOf(ctx);
      return { key: toKey(await keys.getEncryptionKey(deps, access, req.keyId)), message: "Encryption public key found" };
    },
    async authenticateWaas(req, ctx) {
      const access = environmentOf(ctx);
      const { token, expiresAt } = await session.authenticateWaas(deps, access);
      return { token, expiresAt: ts(expiresAt), message: "Authenticated", encodedJwts: { jwt: token } };
    },
    async createWaasWallet(req, ctx) {
      const access = environmentOf(ctx);
      const { wallets: created, userId } = await wallets.createWaasWallets(deps, access, {
        chains: req.chains,
        chain: req.chain,
        userId: orNull(req.userId),
        identifier: req.identifier,
        identifierType: req.type,
        name: orNull(req.name),
        delegatedAccess: req.delegatedAccess ?? true,
      });
      const user = userId ? toUserView(await users.getUser(deps, access, userId)) : undefined;
      return { wallet: toWallet(created[0]!), wallets: created.map((w) => toWallet(w)), user };
    },
    async getWaasWalletByWalletId(req, ctx) {
      const access = environmentOf(ctx);
      const { wallet, backups } = await wallets.getWaasWallet(deps, access, req.walletId);
      return { wallet: toWallet(wallet, backups) };
    },
    async getWaasPolicy(req, ctx) {
      const access = environmentOf(ctx);
      return { policy: toPolicy(await policy.getPolicy(deps, access), "WaaS policy found") };
    },
    async createWaasPolicy(req, ctx) {
      const access = environmentOf(ctx);
      const { list, rules } = rulesOf("rulesToAdd", req.rulesToAdd, req.rules);
      const res = await policy.addRules(deps, access, rules, list);
      return { policy: toPolicy(res.policy, res.created ? "WaaS policy created" : `${rules.length} rule(s) added`) };
    },
    async updateWaasPolicy(req, ctx) {
      const access = environmentOf(ctx);
      const { list, rules, earlier } = rulesOf("rulesToUpdate", req.rulesToUpdate, req.rules);
      const updated = earlier ? await policy.replaceRules(deps, access, rules, list) : await policy.updateRules(deps, access, rules, list);
      return { policy: toPolicy(updated, earlier ? "WaaS policy rules replaced" : `${rules.length} rule(s) updated`) };
    },
    async deleteWaasPolicy(req, ctx) {
      const access = environmentOf(ctx);
      const res = await policy.deleteRules(deps, access, req.ruleIdsToDelete);
      const n = req.ruleIdsToDelete.length;
      return { policy: toPolicy(res.policy, res.deleted ? "last rule(s) deleted: the environment has no WaaS policy now" : `${n} rule(s) deleted`) };
    },
    async verifyApiKey(req, ctx) {
      const access = environmentOf(ctx);
      const valid = await session.verifyApiKey(deps, access, req.apiKey);
      return { valid, verified: valid, environmentId: access.environmentId };
    },
    async revokeDelegatedAccess(req, ctx) {
      const access = environmentOf(ctx);
      const res = await wallets.revokeDelegatedAccess(deps, access, { walletIds: req.walletIds, userId: orNull(req.userId) });
      // Every wallet named ends without delegated access (unknown ids fail the whole call with 404).
      const results = res.wallets.map((w) => ({ walletId: w.id, success: !wallets.delegatedAccessActive(w), error: "" }));
      const succeeded = results.filter((r) => r.success).length;
      return {
        wallets: res.wallets.map((w) => toWallet(w)),
        revokedCount: res.revokedCount,
        results,
        total: results.length,
        succeeded,
        failed: results.length - succeeded,
      };
    },
    async deleteDelegatedAccess(req, ctx) {
      const access = environmentOf(ctx);
      await wallets.revokeWalletDelegatedAccess(deps, access, req.walletId);
      return {};
    },
    async delegatedSignMessage(req, ctx) {
      const access = environmentOf(ctx);
      const { signature, operationId } = await wallets.signWithDelegatedAccess(deps, access, req.walletId, req.message);
      return { signature, roomId: operationId, walletId: req.walletId };
    },
    async backupKeySharesToLocationsForPregen(req, ctx) {
      const access = environmentOf(ctx);
      const stored = await wallets.recordKeyShareBackups(
        deps,
        access,
        req.walletId,
        req.locations.map((l) => ({ location: l.location, externalKeyShareId: l.externalKeyShareId })),
        orNull(req.userId),
      );
      return {
        message: "Key share backup locations recorded",
        walletId: req.walletId,
        locationsWithKeyShares: stored.map((b) => ({ location: b.location, keyShareId: b.id, externalKeyShareId: b.externalKeyShareId })),
      };
    },
  });
}
