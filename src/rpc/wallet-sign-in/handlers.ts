import type { ConnectRouter } from "@connectrpc/connect";
import type { Deps } from "../../domain/deps.js";
import { mergePendingUser } from "../../domain/wallet-sign-in/merge.js";
import { issueNonce } from "../../domain/wallet-sign-in/nonces.js";
import type { WalletProofInput } from "../../domain/wallet-sign-in/proof.js";
import { linkWallet, signInWithWallet, transferWallet } from "../../domain/wallet-sign-in/service.js";
import { unlinkCredential } from "../../domain/wallet-sign-in/unlink.js";
import type { WalletProof } from "../../gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { SdkWalletSignInService } from "../../gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { MFA_TOKEN_HEADER, clientMetaOf, endUserOf, requestIdKey } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** The validated proof (validation declared `proof` required, so it is present). */
function proofOf(p: WalletProof | undefined): WalletProofInput {
  if (!p) throw new Error("validation let a request without its proof through");
  return {
    chain: p.chain,
    publicWalletAddress: p.publicWalletAddress,
    messageToSign: p.messageToSign,
    signedMessage: p.signedMessage,
    walletName: p.walletName,
    walletProvider: p.walletProvider,
    additionalWalletAddresses: p.additionalWalletAddresses.map((a) => ({ address: a.address, type: a.type, publicKey: a.publicKey || null })),
  };
}

export function registerWalletSignIn(router: ConnectRouter, deps: Deps): void {
  router.service(SdkWalletSignInService, {
    async getNonce(_req, ctx) {
      return { nonce: await issueNonce(deps.store, publicEnvironmentOf(ctx).environmentId) };
    },
    async verify(req, ctx) {
      const r = await signInWithWallet(deps, publicEnvironmentOf(ctx), proofOf(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async verifyLink(req, ctx) {
      const r = await linkWallet(deps, publicEnvironmentOf(ctx), endUserOf(ctx), proofOf(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async verifyUnlink(req, ctx) {
      const r = await unlinkCredential(
        deps,
        publicEnvironmentOf(ctx),
        endUserOf(ctx),
        { walletId: req.walletId, verifiedCredentialId: req.verifiedCredentialId || req.verifiedCrentialId, primaryWalletId: req.primaryWalletId },
        ctx.values.get(requestIdKey),
      );
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async verifyTransfer(req, ctx) {
      const r = await transferWallet(deps, publicEnvironmentOf(ctx), endUserOf(ctx), proofOf(req.proof), clientMetaOf(ctx), ctx.requestHeader.get(MFA_TOKEN_HEADER));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async verifyMergeUsers(req, ctx) {
      const resolutions = req.mergeUserResolutions.map((r) => ({ userId: r.userId, fieldKey: r.fieldKey, type: r.type }));
      const r = await mergePendingUser(deps, publicEnvironmentOf(ctx), endUserOf(ctx), resolutions, ctx.values.get(requestIdKey), ctx.requestHeader.get(MFA_TOKEN_HEADER));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async mergeUsers(_req, ctx) {
      const r = await mergePendingUser(deps, publicEnvironmentOf(ctx), endUserOf(ctx), null, ctx.values.get(requestIdKey), ctx.requestHeader.get(MFA_TOKEN_HEADER));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
  });
}
