import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { walletBackup, walletPasscode } from "../../domain/embedded-wallets/sdk-backups.js";
import { exportEmbeddedWallet, walletAuthToken } from "../../domain/embedded-wallets/sdk-export.js";
import { completePasskeyRecovery, initPasskeyRecovery } from "../../domain/embedded-wallets/sdk-passkey-recovery.js";
import { initEmailAuth, updateRecoveryEmail } from "../../domain/embedded-wallets/sdk-recovery.js";
import { registerSessionKey } from "../../domain/embedded-wallets/sdk-session-keys.js";
import type { ActivityBody, SignedRequest as DomainSignedRequest } from "../../domain/embedded-wallets/sdk-signed-requests.js";
import {
  claimEmbeddedWallet,
  createAccountRequestBody,
  createOwnEmbeddedWallets,
  createWalletAccount,
  deleteEmbeddedWallets,
  deleteRequestBody,
  restoreEmbeddedWallet,
  softDeleteEmbeddedWallet,
  upgradeOwnEmbeddedWalletsToV2,
  type WalletCaller,
} from "../../domain/embedded-wallets/sdk-wallets.js";
import type { renewSession } from "../../domain/sessions/service.js";
import { SdkEmbeddedWalletsService, type SignedRequest } from "../../gen/sigil/embedded_wallets/v0/sdk_embedded_wallets_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

type Ctx = Parameters<typeof clientMetaOf>[0];

/** The header that carries an mfaToken (a fresh second factor of this session) to the export. */
const MFA_TOKEN_HEADER = "x-mfa-auth-token";

/** The page a passkey ceremony runs on (the relying party derives from it; checked in the domain). */
const originOf = (ctx: { requestHeader: Headers }) => ctx.requestHeader.get("origin");

const callerOf = (ctx: Ctx): WalletCaller => ({ env: publicEnvironmentOf(ctx), principal: endUserOf(ctx), meta: clientMetaOf(ctx) });

/** The client's VerifyResponse: the session's new tokens with the user as they are now. */
const signedIn = ({ tokens, user }: Awaited<ReturnType<typeof renewSession>>) => ({ signIn: toSignIn(tokens, user) });

const signedRequestOf = (r: SignedRequest | undefined): DomainSignedRequest | undefined =>
  r ? { body: r.body, stampHeaderValue: r.stamp?.stampHeaderValue ?? "" } : undefined;

/** A body for the client to sign, as the published client's Turnkey...RequestBody. */
const bodyOf = (b: ActivityBody) => ({ body: b });

export function registerSdkEmbeddedWallets(router: ConnectRouter, deps: Deps): void {
  router.service(SdkEmbeddedWalletsService, {
    async createEmbeddedWallets(req, ctx) {
      // A session key sent with the wallets is registered first (a malformed one refuses the whole call).
      for (const w of req.embeddedWallets) if (w.sessionPublicKey) await registerSessionKey(deps, endUserOf(ctx), w.sessionPublicKey);
      return signedIn(await createOwnEmbeddedWallets(deps, callerOf(ctx), req.embeddedWallets.map((w) => ({ chains: w.chains, chain: w.chain }))));
    },
    async upgradeEmbeddedWalletToV2(req, ctx) {
      return signedIn(await upgradeOwnEmbeddedWalletsToV2(deps, callerOf(ctx), req.sessionPublicKey || undefined));
    },
    async claimEmbeddedWallet(req, ctx) {
      return signedIn(await claimEmbeddedWallet(deps, callerOf(ctx), req.walletId));
    },
    async registerSessionKey(req, ctx) {
      const k = await registerSessionKey(deps, endUserOf(ctx), req.publicKey);
      return { publicKey: k.publicKey, expiresAt: Math.floor(k.expiresAt.getTime() / 1000) };
    },
    async softDeleteEmbeddedWallet(req, ctx) {
      await softDeleteEmbeddedWallet(deps, callerOf(ctx), req.walletId);
      return {};
    },
    async restoreEmbeddedWallet(req, ctx) {
      await restoreEmbeddedWallet(deps, callerOf(ctx), req.walletId);
      return {};
    },
    async getEmbeddedWalletsDeleteRequest(req, ctx) {
      return bodyOf(await deleteRequestBody(deps, callerOf(ctx), req.walletId));
    },
    async legacyGetEmbeddedWalletsDeleteRequest(_req, ctx) {
      return bodyOf(await deleteRequestBody(deps, callerOf(ctx)));
    },
    async deleteEmbeddedWallets(req, ctx) {
      await deleteEmbeddedWallets(deps, callerOf(ctx), signedRequestOf(req.turnkeySignedRequest));
      return {};
    },
    async getCreateWalletAccountRequest(req, ctx) {
      return bodyOf(await createAccountRequestBody(deps, callerOf(ctx), req.chain));
    },
    async createWalletAccount(req, ctx) {
      return signedIn(await createWalletAccount(deps, callerOf(ctx), signedRequestOf(req.turnkeySignedRequest)));
    },
    async embeddedWalletExport(req, ctx) {
      return { exportBundle: await exportEmbeddedWallet(deps, callerOf(ctx), req.walletId, req.activityId, ctx.requestHeader.get(MFA_TOKEN_HEADER)) };
    },
    async getEmbeddedWalletPasscode(_req, ctx) {
      return { secret: await walletPasscode(deps, callerOf(ctx)) };
    },
    async getEmbeddedWalletBackups(_req, ctx) {
      return { secret: await walletBackup(deps, callerOf(ctx), ctx.requestHeader.get(MFA_TOKEN_HEADER)) };
    },
    async updateEmbeddedWalletRecoveryEmail(req, ctx) {
      await updateRecoveryEmail(deps, callerOf(ctx), signedRequestOf(req.turnkeySignedRequest));
      return {};
    },
    async initEmailAuth(req, ctx) {
      return initEmailAuth(deps, callerOf(ctx), req.walletId, req.turnkeyEmailAuthTargetPublicKey);
    },
    async initPasskeyRecovery(req, ctx) {
      return initPasskeyRecovery(deps, callerOf(ctx), req.walletId, req.turnkeyRecoveryTargetPublicKey, originOf(ctx));
    },
    async completePasskeyRecovery(req, ctx) {
      const r = await completePasskeyRecovery(deps, callerOf(ctx), { walletId: req.walletId, attestation: req.attestation, challenge: req.challenge }, originOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async getAuthToken(req, ctx) {
      return { token: await walletAuthToken(deps, callerOf(ctx), req.type) };
    },
  });
}
