import { randomUUID } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { EmbeddedWalletAuthType, EmbeddedWalletChainEnum, EmbeddedWalletProviderEnum, SDKApi, type Configuration } from "@dynamic-labs/sdk-api";
import { compactDecrypt, importJWK } from "jose";
import { sessionKeyJwk } from "../../../src/domain/embedded-wallets/sdk-session-keys.js";
import { signInAs } from "../../support/sessions.js";
import { SoftwareAuthenticator } from "../../support/webauthn-authenticator.js";
import type { CompatContext, Scenarios } from "../harness.js";
import { lastMailedText } from "./dev-messages.js";

/**
 * SDKApi, the end user's own V1 embedded wallets (run in this order): a user creates wallets, registers a
 * session key, reads passcode and backup, exports, signs delete / create-account / recovery-e-mail bodies,
 * soft-deletes and restores, and recovers by e-mail and passkey (bundles read from the dev mailbox of
 * test/compat/sdk-embedded-wallets.test.ts's data directory); a pregenerated wallet is claimed, and another
 * (put back on V1) upgraded to V2.
 */

const ORIGIN = "https://wallet.example.com";

const client = (ctx: CompatContext) => ctx.api(SDKApi, ctx.state.jwt);
/** The client as a page on ORIGIN calls it (passkey ceremonies take their relying party from the Origin). */
const onPage = (ctx: CompatContext) =>
  ctx.api(SDKApi as new (c: Configuration) => SDKApi, ctx.state.jwt).withPreMiddleware(async ({ url, init }) => ({
    url,
    init: { ...init, headers: { ...(init.headers as Record<string, string>), Origin: ORIGIN } },
  }));

/** A request body stamped with the session key (the Turnkey API-key stamp). */
function stamped(ctx: CompatContext, body: unknown) {
  const text = JSON.stringify(body);
  const signature = bytesToHex(p256.sign(new TextEncoder().encode(text), ctx.state.secretKey, { format: "der" }));
  const value = { publicKey: ctx.state.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature };
  return { body: text, stamp: { stampHeaderName: "X-Stamp", stampHeaderValue: base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(value))) }, url: "" };
}

/** The device's target key for mailed bundles, and the opener of a bundle mailed to the user. */
async function openMailedBundle(ctx: CompatContext): Promise<Uint8Array> {
  const text = await lastMailedText(ctx.app.config.dataDir, ctx.state.email);
  const bundle = text.split(/\s+/).find((w) => w.split(".").length === 5)!;
  const jwk = sessionKeyJwk(bytesToHex(p256.getPublicKey(ctx.state.target, true)));
  const key = await importJWK({ ...jwk, d: base64urlnopad.encode(ctx.state.target) }, "ECDH-ES");
  return (await compactDecrypt(bundle, key)).plaintext;
}

const env = (ctx: CompatContext) => ctx.tenant.environmentId;

export const sdkEmbeddedWalletsApi: Scenarios = {
  "SDKApi.createEmbeddedWallets": async (ctx) => {
    await ctx.rest("POST", `/environments/${env(ctx)}/origins`, { origin: ORIGIN });
    ctx.state.email = `compat-ew-${randomUUID()}@example.com`;
    ctx.state.jwt = (await signInAs(ctx.app, env(ctx), ctx.state.email)).jwt;
    const r = await client(ctx).createEmbeddedWallets({
      environmentId: env(ctx),
      createEmbeddedWalletsRequest: { embeddedWallets: [{ chains: [EmbeddedWalletChainEnum.Evm], embeddedWalletProvider: EmbeddedWalletProviderEnum.Turnkey }] },
    });
    ctx.state.jwt = r.jwt;
    ctx.state.walletId = r.user.verifiedCredentials.find((c) => c.walletProvider === "embeddedWallet")!.id;
  },
  "SDKApi.registerSessionKey": (ctx) => {
    ctx.state.secretKey = p256.utils.randomSecretKey();
    ctx.state.publicKey = bytesToHex(p256.getPublicKey(ctx.state.secretKey, true));
    return client(ctx).registerSessionKey({ environmentId: env(ctx), registerSessionKeyRequest: { publicKey: ctx.state.publicKey } });
  },
  "SDKApi.getAuthToken": (ctx) => client(ctx).getAuthToken({ environmentId: env(ctx), type: EmbeddedWalletAuthType.Mpc }),
  "SDKApi.getEmbeddedWalletPasscode": (ctx) => client(ctx).getEmbeddedWalletPasscode({ environmentId: env(ctx) }),
  "SDKApi.getEmbeddedWalletBackups": (ctx) => client(ctx).getEmbeddedWalletBackups({ environmentId: env(ctx) }),
  "SDKApi.embeddedWalletExport": (ctx) => client(ctx).embeddedWalletExport({ environmentId: env(ctx), walletId: ctx.state.walletId, activityId: randomUUID() }),
  "SDKApi.getCreateWalletAccountRequest": async (ctx) => {
    ctx.state.accountBody = await client(ctx).getCreateWalletAccountRequest({ environmentId: env(ctx), chain: EmbeddedWalletChainEnum.Sol });
    return ctx.state.accountBody;
  },
  "SDKApi.createWalletAccount": async (ctx) => {
    const b = ctx.state.accountBody;
    const body = { organizationId: b.organizationId, parameters: { walletId: b.parameters.walletId, accounts: b.parameters.accounts }, timestampMs: b.timestampMs, type: b.type };
    const r = await client(ctx).createWalletAccount({ environmentId: env(ctx), createWalletAccountRequest: { turnkeySignedRequest: stamped(ctx, body) } });
    ctx.state.jwt = r.jwt;
    ctx.state.solWalletId = r.user.verifiedCredentials.find((c) => c.walletProvider === "embeddedWallet" && c.chain === "SOL")!.id;
    return r;
  },
  "SDKApi.updateEmbeddedWalletRecoveryEmail": (ctx) =>
    client(ctx).updateEmbeddedWalletRecoveryEmail({
      environmentId: env(ctx),
      updateRecoveryEmailRequest: {
        turnkeySignedRequest: stamped(ctx, { organizationId: env(ctx), parameters: { email: ctx.state.email }, timestampMs: String(Date.now()), type: "ACTIVITY_TYPE_UPDATE_RECOVERY_EMAIL" }),
      },
    }),
  "SDKApi.initEmailAuth": async (ctx) => {
    ctx.state.target = p256.utils.randomSecretKey();
    const turnkeyEmailAuthTargetPublicKey = bytesToHex(p256.getPublicKey(ctx.state.target, false));
    const r = await client(ctx).initEmailAuth({ environmentId: env(ctx), initEmailAuthRequest: { walletId: ctx.state.walletId, turnkeyEmailAuthTargetPublicKey } });
    await openMailedBundle(ctx);
    return r;
  },
  "SDKApi.initPasskeyRecovery": async (ctx) => {
    const turnkeyRecoveryTargetPublicKey = bytesToHex(p256.getPublicKey(ctx.state.target, false));
    const r = await onPage(ctx).initPasskeyRecovery({ environmentId: env(ctx), initPasskeyRecoveryRequest: { walletId: ctx.state.walletId, turnkeyRecoveryTargetPublicKey } });
    ctx.state.creation = JSON.parse(new TextDecoder().decode(await openMailedBundle(ctx)));
    return r;
  },
  "SDKApi.completePasskeyRecovery": (ctx) => {
    const a = new SoftwareAuthenticator().create(ctx.state.creation, ORIGIN);
    return onPage(ctx).completePasskeyRecovery({
      environmentId: env(ctx),
      completePasskeyRecoveryRequest: {
        walletId: ctx.state.walletId,
        challenge: ctx.state.creation.challenge,
        attestation: { credentialId: a.id, attestationObject: a.response.attestationObject, clientDataJson: a.response.clientDataJSON, transports: a.response.transports as never },
      },
    });
  },
  "SDKApi.softDeleteEmbeddedWallet": (ctx) => client(ctx).softDeleteEmbeddedWallet({ environmentId: env(ctx), walletId: ctx.state.solWalletId }),
  "SDKApi.restoreEmbeddedWallet": (ctx) => client(ctx).restoreEmbeddedWallet({ environmentId: env(ctx), walletId: ctx.state.solWalletId }),
  "SDKApi.legacyGetEmbeddedWalletsDeleteRequest": (ctx) => client(ctx).legacyGetEmbeddedWalletsDeleteRequest({ environmentId: env(ctx) }),
  "SDKApi.getEmbeddedWalletsDeleteRequest": async (ctx) => {
    ctx.state.deleteBody = await client(ctx).getEmbeddedWalletsDeleteRequest({ environmentId: env(ctx), walletId: ctx.state.solWalletId });
    return ctx.state.deleteBody;
  },
  "SDKApi.deleteEmbeddedWallets": (ctx) => {
    const b = ctx.state.deleteBody;
    const body = { organizationId: b.organizationId, parameters: { walletIds: b.parameters.walletIds, deleteWithoutExport: true }, timestampMs: b.timestampMs, type: b.type };
    return client(ctx).deleteEmbeddedWallets({ environmentId: env(ctx), deleteEmbeddedWalletsRequest: { turnkeySignedRequest: stamped(ctx, body) } });
  },
  "SDKApi.claimEmbeddedWallet": async (ctx) => {
    const email = `compat-pre-${randomUUID()}@example.com`;
    await ctx.rest("POST", `/environments/${env(ctx)}/embeddedWallets`, { identifier: email, type: "email", chain: "EVM" });
    const s = await signInAs(ctx.app, env(ctx), email);
    const me = await ctx.api(SDKApi, s.jwt).getAuthenticatedUser({ environmentId: env(ctx) });
    const walletId = me.verifiedCredentials.find((c) => c.walletProvider === "embeddedWallet")!.id;
    return ctx.api(SDKApi, s.jwt).claimEmbeddedWallet({ environmentId: env(ctx), embeddedWalletPasscodeClaimRequest: { walletId } });
  },
  "SDKApi.upgradeEmbeddedWalletToV2": async (ctx) => {
    const email = `compat-v1-${randomUUID()}@example.com`;
    await ctx.rest("POST", `/environments/${env(ctx)}/embeddedWallets`, { identifier: email, type: "email", chain: "EVM" });
    const s = await signInAs(ctx.app, env(ctx), email);
    // New embedded wallets are made on V2: the scenario puts this one back on V1 in SQL, standing for a wallet made before V2.
    await ctx.app.db.none(`UPDATE wallets SET properties = properties || '{"version":"V1"}' WHERE user_id = $1 AND provider = 'embeddedWallet'`, [s.userId]);
    const sessionPublicKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
    return ctx.api(SDKApi, s.jwt).upgradeEmbeddedWalletToV2({ environmentId: env(ctx), upgradeEmbeddedWalletToV2Request: { sessionPublicKey } });
  },
  // The browser preflights (OPTIONS) the client declares on these paths: 204 with the path's Allow header.
  "SDKApi.createEmbeddedWalletsOptions": (ctx) => ctx.api(SDKApi).createEmbeddedWalletsOptions({ environmentId: env(ctx) }),
  "SDKApi.getAuthTokenOpts": (ctx) => ctx.api(SDKApi).getAuthTokenOpts({ environmentId: env(ctx) }),
  "SDKApi.getEmbeddedWalletBackupOption": (ctx) => ctx.api(SDKApi).getEmbeddedWalletBackupOption({ environmentId: env(ctx) }),
  "SDKApi.legacyEmbeddedWalletDeleteRequestOptions": (ctx) => ctx.api(SDKApi).legacyEmbeddedWalletDeleteRequestOptions({ environmentId: env(ctx) }),
  "SDKApi.emailAuthOptions": (ctx) => ctx.api(SDKApi).emailAuthOptions({ environmentId: env(ctx) }),
  "SDKApi.getEmbeddedWalletPasscodeOption": (ctx) => ctx.api(SDKApi).getEmbeddedWalletPasscodeOption({ environmentId: env(ctx) }),
  "SDKApi.claimEmbeddedWalletOptions": (ctx) => ctx.api(SDKApi).claimEmbeddedWalletOptions({ environmentId: env(ctx) }),
  "SDKApi.passkeyRecoveryOptions": (ctx) => ctx.api(SDKApi).passkeyRecoveryOptions({ environmentId: env(ctx) }),
  "SDKApi.recoveryEmailOptions": (ctx) => ctx.api(SDKApi).recoveryEmailOptions({ environmentId: env(ctx) }),
  "SDKApi.sessionKeyOptions": (ctx) => ctx.api(SDKApi).sessionKeyOptions({ environmentId: env(ctx) }),
  "SDKApi.walletAccountOptions": (ctx) => ctx.api(SDKApi).walletAccountOptions({ environmentId: env(ctx) }),
  "SDKApi.walletAccountRequestOptions": (ctx) => ctx.api(SDKApi).walletAccountRequestOptions({ environmentId: env(ctx) }),
  "SDKApi.embeddedWalletExportOptions": (ctx) =>
    ctx.api(SDKApi).embeddedWalletExportOptions({ environmentId: env(ctx), walletId: ctx.state.walletId, activityId: randomUUID() }),
  "SDKApi.embeddedWalletDeleteRequestOptions": (ctx) => ctx.api(SDKApi).embeddedWalletDeleteRequestOptions({ environmentId: env(ctx), walletId: ctx.state.walletId }),
  "SDKApi.restoreEmbeddedWalletOptions": (ctx) => ctx.api(SDKApi).restoreEmbeddedWalletOptions({ environmentId: env(ctx), walletId: ctx.state.walletId }),
  "SDKApi.upgradeEmbeddedWalletToV2Option": (ctx) => ctx.api(SDKApi).upgradeEmbeddedWalletToV2Option({ environmentId: env(ctx) }),
  "SDKApi.softDeleteEmbeddedWalletOptions": (ctx) => ctx.api(SDKApi).softDeleteEmbeddedWalletOptions({ environmentId: env(ctx), walletId: ctx.state.walletId }),
};
