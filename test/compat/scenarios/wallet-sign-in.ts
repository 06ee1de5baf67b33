import { SDKApi } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import { evmProof, newEvmWallet } from "../../support/wallet-proofs.js";
import type { CompatContext, Scenarios } from "../harness.js";

/** A fresh nonce and an EIP-4361 proof of `wallet` signed with it (a throwaway viem key). */
async function proof({ api, tenant }: CompatContext, wallet: ReturnType<typeof newEvmWallet>) {
  const { nonce } = await api(SDKApi).getNonce({ environmentId: tenant.environmentId });
  return evmProof(wallet, nonce!);
}

/** A user signed in with a wallet only; returns the wallet and the session. */
async function walletUser(ctx: CompatContext) {
  const wallet = newEvmWallet();
  const r = await ctx.api(SDKApi).verify({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, wallet) });
  return { wallet, jwt: r.jwt, userId: r.user.id };
}

/**
 * SDKApi, wallet signatures: one scenario per operation, run in this order. A signed-in user (by e-mail)
 * links a wallet, unlinks it, takes another user's wallet, and merges a third user in.
 */
export const walletSignInApi: Scenarios = {
  "SDKApi.getNonce": ({ api, tenant }) => api(SDKApi).getNonce({ environmentId: tenant.environmentId }),
  "SDKApi.verify": async (ctx) => {
    const wallet = newEvmWallet();
    return ctx.api(SDKApi).verify({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, wallet) });
  },
  "SDKApi.verifyLink": async (ctx) => {
    ctx.state.user = await signInAs(ctx.app, ctx.tenant.environmentId);
    const r = await ctx.api(SDKApi, ctx.state.user.jwt).verifyLink({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, newEvmWallet()) });
    ctx.state.user.jwt = r.jwt;
    ctx.state.linkedWalletCredentialId = r.user.verifiedCredentials!.find((c) => c.format === "blockchain")!.id;
  },
  "SDKApi.verifyUnlink": async ({ api, tenant, state }) => {
    const r = await api(SDKApi, state.user.jwt).verifyUnlink({ environmentId: tenant.environmentId, verifyUnlinkRequest: { verifiedCredentialId: state.linkedWalletCredentialId } });
    state.user.jwt = r.jwt;
  },
  "SDKApi.verifyTransfer": async (ctx) => {
    // The other user also holds an e-mail, so the wallet is not their only way to sign in.
    const other = await signInAs(ctx.app, ctx.tenant.environmentId);
    const wallet = newEvmWallet();
    await ctx.api(SDKApi, other.jwt).verifyLink({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, wallet) });
    const r = await ctx.api(SDKApi, ctx.state.user.jwt).verifyTransfer({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, wallet) });
    ctx.state.user.jwt = r.jwt;
  },
  "SDKApi.verifyMergeUsers": async (ctx) => {
    const other = await walletUser(ctx);
    await ctx.rest("PUT", `/environments/${ctx.tenant.environmentId}/users/${ctx.state.user.userId}`, { firstName: "Alice" });
    await ctx.rest("PUT", `/environments/${ctx.tenant.environmentId}/users/${other.userId}`, { firstName: "Bob" });
    // The failed link remembers the other user for this session; the merge resolves their one conflict.
    await ctx.api(SDKApi, ctx.state.user.jwt).verifyLink({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, other.wallet) }).catch(() => undefined);
    const r = await ctx.api(SDKApi, ctx.state.user.jwt).verifyMergeUsers({
      environmentId: ctx.tenant.environmentId,
      mergeUserConflictResolutions: { mergeUserResolutions: [{ userId: other.userId, fieldKey: "firstName", type: "standard" as never }] },
    });
    ctx.state.user.jwt = r.jwt;
  },
  "SDKApi.mergeUsers": async (ctx) => {
    const other = await walletUser(ctx);
    await ctx.api(SDKApi, ctx.state.user.jwt).verifyLink({ environmentId: ctx.tenant.environmentId, verifyRequest: await proof(ctx, other.wallet) }).catch(() => undefined);
    return ctx.api(SDKApi, ctx.state.user.jwt).mergeUsers({ environmentId: ctx.tenant.environmentId });
  },
};
