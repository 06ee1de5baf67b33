import { SDKApi, type Configuration } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import type { CompatContext, Scenarios } from "../harness.js";

const APP = "https://shop.example";

/** The client as a page of the app on APP calls it: the connection's app is the page's Origin. */
const onPage = (ctx: CompatContext, jwt: string) =>
  ctx.api(SDKApi as new (c: Configuration) => SDKApi, jwt).withPreMiddleware(async ({ url, init }) => ({
    url,
    init: { ...init, headers: { ...(init.headers as Record<string, string>), Origin: APP } },
  }));

/**
 * SDKApi, the signed-in user's global wallet connections and the public SSO check, run in this order: the
 * environment's global wallet is set up, a user connects the app and disconnects it; an address in the
 * organization's SSO domain is answered sso.
 */
export const sdkGlobalWalletSsoApi: Scenarios = {
  "SDKApi.createGlobalWalletConnection": async (ctx) => {
    await ctx.rest("POST", `/environments/${ctx.tenant.environmentId}/globalWallet/settings`, { walletName: "Acme" });
    ctx.state.user = await signInAs(ctx.app, ctx.tenant.environmentId);
    ctx.state.connection = await onPage(ctx, ctx.state.user.jwt).createGlobalWalletConnection({
      environmentId: ctx.tenant.environmentId,
      globalWalletConnectionCreateRequest: { expiresAt: new Date(Date.now() + 86_400_000) },
    });
  },
  "SDKApi.disconnectGlobalWalletConnection": (ctx) =>
    onPage(ctx, ctx.state.user.jwt).disconnectGlobalWalletConnection({ environmentId: ctx.tenant.environmentId, globalWalletConnectionId: ctx.state.connection.id }),
  "SDKApi.checkSsoProvider": async (ctx) => {
    const domain = `compat-${ctx.tenant.organizationId.slice(0, 8)}.example`;
    const body = { protocol: "oidc", issuer: "https://idp.example.com", clientId: "cid", clientSecret: "secret-value", domains: [domain] };
    await ctx.rest("POST", `/organizations/${ctx.tenant.organizationId}/ssoProvider`, body);
    return ctx.api(SDKApi).checkSsoProvider({ environmentId: ctx.tenant.environmentId, ssoProviderCheckRequest: { email: `ada@${domain}` } });
  },
  // The browser preflights (OPTIONS) the client declares on the connection paths: 204 with the path's methods.
  "SDKApi.globalWalletConnectionsOptions": ({ api, tenant }) => api(SDKApi).globalWalletConnectionsOptions({ environmentId: tenant.environmentId }),
  "SDKApi.disconnectGlobalWalletConnectionOptions": (ctx) =>
    ctx.api(SDKApi).disconnectGlobalWalletConnectionOptions({ environmentId: ctx.tenant.environmentId, globalWalletConnectionId: ctx.state.connection.id }),
};
