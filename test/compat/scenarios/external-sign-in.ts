import { randomBytes, randomUUID } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { newEvmWallet } from "../../support/wallet-proofs.js";
import { neutralWords } from "../../support/neutral-words.js";
import { signInAs } from "../../support/sessions.js";
import { clientChatUser, signWidget, widgetUser } from "../../e2e/support/chat-widget.js";
import { APP_PAGE, withQuery } from "../../e2e/support/oauth-flow.js";
import { socialProof, type SocialHubPeer } from "../../e2e/support/social-hub-peer.js";
import type { CompatContext, Scenarios } from "../harness.js";

const ISSUER = "https://idp.example.com";
const AUDIENCE = "compat-app";
const BOT_TOKEN = `4242:${randomBytes(16).toString("hex")}`;

/** The client at the contract's neutral paths (the chat and decentralized-social operations name vendors). */
const sdk = (ctx: CompatContext, jwt?: string) => (jwt ? ctx.api(SDKApi, jwt) : ctx.api(SDKApi)).withMiddleware(neutralWords);
const env = (ctx: CompatContext) => ({ environmentId: ctx.tenant.environmentId });

/** A token of the environment's external identity provider (trusted by its PEM public key) for `sub`. */
async function externalToken(ctx: CompatContext, sub: string): Promise<string> {
  if (!ctx.state.idpKey) {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    await ctx.rest("PUT", `/environments/${ctx.tenant.environmentId}`, {
      security: { externalAuth: { enabled: true, iss: ISSUER, aud: AUDIENCE, publicKey: await exportSPKI(publicKey) } },
    });
    ctx.state.idpKey = privateKey;
  }
  return new SignJWT({}).setProtectedHeader({ alg: "ES256" }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(ctx.state.idpKey);
}

/** The widget page for a state, with the app's page as its redirect URL (the typed request has no place for it). */
const openChatPage = (ctx: CompatContext, state: string) => withQuery(sdk(ctx), { redirectUrl: APP_PAGE }).getTelegramAuth({ ...env(ctx), state });

/**
 * A state whose widget data (signed with the environment's bot token) has been posted, and the one-time
 * code the post answered for the app's page (read raw: the typed answer is void).
 */
async function completedState(ctx: CompatContext): Promise<{ state: string; code: string }> {
  const state = randomBytes(16).toString("hex");
  await openChatPage(ctx, state);
  const posted = await sdk(ctx).postTelegramAuthRaw({ ...env(ctx), telegramPostRequest: { state, telegramUser: clientChatUser(signWidget(BOT_TOKEN, widgetUser())) } });
  const { redirectUrl } = (await posted.raw.json()) as { redirectUrl: string };
  return { state, code: new URL(redirectUrl).searchParams.get("code")! };
}

/** A new account of the loopback hub, held by a fresh custody wallet, and its signed sign-in request. */
async function socialRequest(ctx: CompatContext, hub: SocialHubPeer) {
  const custody = newEvmWallet();
  const fid = String(5000 + hub.accounts.size);
  hub.accounts.set(fid, { custodyAddress: custody.address, username: `compat${fid}` });
  const { nonce } = await ctx.api(SDKApi).getNonce(env(ctx));
  return socialProof(custody, fid, nonce!);
}

/** The loopback hub the decentralized-social scenarios register accounts with (set by the test file). */
let hub: SocialHubPeer | undefined;
export function useSocialHub(peer: SocialHubPeer): void {
  hub = peer;
}
function theHub(): SocialHubPeer {
  if (!hub) throw new Error("useSocialHub was not called");
  return hub;
}

/**
 * SDKApi, issue 13's external sign-ins: an external identity provider's JWT, the chat login widget, a
 * decentralized-social account (against the loopback hub), and their preflights.
 */
export const externalSignInApi: Scenarios = {
  "SDKApi.externalAuthSignin": async (ctx) => sdk(ctx).externalAuthSignin({ ...env(ctx), externalAuthSigninRequest: { jwt: await externalToken(ctx, `compat-${randomUUID()}`) } }),
  "SDKApi.externalAuthVerify": async (ctx) => {
    const user = await signInAs(ctx.app, ctx.tenant.environmentId);
    await sdk(ctx, user.jwt).externalAuthVerify({ ...env(ctx), externalAuthSigninRequest: { jwt: await externalToken(ctx, `compat-${randomUUID()}`) } });
  },
  "SDKApi.externalAuthSigninOptions": (ctx) => sdk(ctx).externalAuthSigninOptions(env(ctx)),
  "SDKApi.externalAuthVerifyOptions": (ctx) => sdk(ctx).externalAuthVerifyOptions(env(ctx)),
  "SDKApi.getTelegramAuth": async (ctx) => {
    await ctx.rest("POST", `/environments/${ctx.tenant.environmentId}/settings/providers`, { provider: "chat", clientId: "compat_bot", clientSecret: BOT_TOKEN });
    // A deeplink URL rather than an origin: an origin would also restrict the sign-in message domains below.
    await ctx.rest("POST", `/environments/${ctx.tenant.environmentId}/deeplinkUrls`, { url: APP_PAGE });
    return openChatPage(ctx, randomBytes(16).toString("hex"));
  },
  "SDKApi.postTelegramAuth": async (ctx) => {
    ctx.state.chat = await completedState(ctx);
  },
  "SDKApi.telegramCheckAuth": (ctx) => sdk(ctx).telegramCheckAuth({ ...env(ctx), oauthResultRequest: { state: ctx.state.chat.state } }),
  "SDKApi.telegramSignIn": (ctx) => sdk(ctx).telegramSignIn({ ...env(ctx), oauthResultRequest: ctx.state.chat }),
  "SDKApi.telegramVerify": async (ctx) => {
    const user = await signInAs(ctx.app, ctx.tenant.environmentId);
    return sdk(ctx, user.jwt).telegramVerify({ ...env(ctx), oauthResultRequest: await completedState(ctx) });
  },
  "SDKApi.telegramAuthOptions": (ctx) => sdk(ctx).telegramAuthOptions(env(ctx)),
  "SDKApi.telegramCheckAuthOptions": (ctx) => sdk(ctx).telegramCheckAuthOptions(env(ctx)),
  "SDKApi.telegramSignInOptions": (ctx) => sdk(ctx).telegramSignInOptions(env(ctx)),
  "SDKApi.telegramVerifyOptions": (ctx) => sdk(ctx).telegramVerifyOptions(env(ctx)),
  "SDKApi.farcasterSignIn": async (ctx) => sdk(ctx).farcasterSignIn({ ...env(ctx), farcasterSignInRequest: await socialRequest(ctx, theHub()) }),
  "SDKApi.farcasterVerify": async (ctx) => {
    const user = await signInAs(ctx.app, ctx.tenant.environmentId);
    return sdk(ctx, user.jwt).farcasterVerify({ ...env(ctx), farcasterSignInRequest: await socialRequest(ctx, theHub()) });
  },
  "SDKApi.farcasterSignInOptions": (ctx) => sdk(ctx).farcasterSignInOptions(env(ctx)),
  "SDKApi.farcasterVerifyOptions": (ctx) => sdk(ctx).farcasterVerifyOptions(env(ctx)),
};
