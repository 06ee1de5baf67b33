import { randomUUID } from "node:crypto";
import { ChainEnum, Configuration, SDKApi, WalletProviderEnum } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused } from "../support/sdk-client.js";

/**
 * What a client app loads first, through the published client's SDKApi (unchanged, basePath /api/v0):
 * the SDK's view of the environment (never a secret), health, visits, prefetch, the SDK's self-report,
 * the email sign-in provider, global wallet settings, URL scans and networks.
 */

let app: TestApp;
let sdk: SDKApi;
beforeAll(async () => {
  app = await startTestApp();
  sdk = new SDKApi(new Configuration({ basePath: `${app.baseUrl}/api/v0` }));
}, 60_000);
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `sdk-settings-${randomUUID()}@example.com` });
const manage = async (t: BootstrapResult, method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: t.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const evmAddress = () => privateKeyToAddress(generatePrivateKey());

describe("getEnvironmentSettings", () => {
  it("shows enabled providers, chains, fields, security and design, and never a secret", async () => {
    const t = await tenant();
    const env = t.environmentId;
    await manage(t, "PUT", `/environments/${env}`, {
      general: { displayName: "Acme", supportEmail: "help@acme.example" },
      chains: [{ name: "EVM", enabled: true }, { name: "SOL", enabled: false }],
      design: { modal: { theme: "dark", primaryColor: "#123456" } },
      privacy: { collectIp: false },
      security: { jwtDuration: { amount: 2, unit: "hours" } },
    });
    const oidc = await manage(t, "POST", `/environments/${env}/settings/providers`, {
      provider: "oidc", clientId: "client-abc", clientSecret: "oidc-secret-value", authorizationUrl: "https://issuer.example/authorize",
    });
    const sms = await manage(t, "POST", `/environments/${env}/settings/providers`, {
      provider: "sms", accountSid: "AC-account-sid", smsNumber: "+15005550006", clientSecret: "sms-auth-token-value",
    });
    await manage(t, "PUT", `/settings/providers/${sms.id}/disable`);
    await manage(t, "POST", `/environments/${env}/custom/fields`, { name: "nickname", label: "Nickname", position: 1 });
    await manage(t, "POST", `/organizations/${t.organizationId}/customNetworks`, {
      name: "Acme Chain", chainId: 424242, rpcUrls: ["https://rpc.acme.example"], blockExplorerUrls: ["https://scan.acme.example"],
      nativeCurrency: { name: "Acme Ether", symbol: "AETH", decimals: 18 }, testnet: true,
    });

    const settings = await sdk.getEnvironmentSettings({ environmentId: env, sdkVersion: "4.0.0" });
    expect(settings.environmentName).toBe("sandbox");
    expect(settings.chains).toEqual([{ name: "EVM", enabled: true, networks: [] }, { name: "SOL", enabled: false, networks: [] }]);
    expect(settings.general).toMatchObject({ displayName: "Acme", supportEmail: "help@acme.example" });
    expect(settings.design).toEqual({ modal: { theme: "dark", primaryColor: "#123456" } });
    expect(settings.privacy).toEqual({ collectIp: false });
    expect(settings.security.jwtDuration).toEqual({ amount: 2, unit: "hours" });
    expect(settings.kyc).toContainEqual({ name: "email", enabled: true, required: false, unique: true, verify: true });
    expect(settings.customFields).toEqual([expect.objectContaining({ name: "nickname", label: "Nickname", position: 1, enabled: true })]);
    // Only the enabled provider, with its public fields.
    expect(settings.providers!.map((p) => p.id)).toEqual([oidc.id]);
    expect(settings.providers![0]).toMatchObject({ provider: "oidc", clientId: "client-abc", authorizationUrl: "https://issuer.example/authorize" });
    expect(settings.networks).toEqual([
      { chainName: "EVM", networks: [expect.objectContaining({ name: "Acme Chain", chainId: "424242", networkId: "424242", chain: "EVM", isTestnet: true, rpcUrls: ["https://rpc.acme.example"] })] },
    ]);

    // The raw answer: no secret, sealed value or kind-specific account data, whatever the provider.
    await manage(t, "PUT", `/settings/providers/${sms.id}/enable`);
    const raw = await fetch(`${app.baseUrl}/api/v0/sdk/${env}/settings`);
    expect(raw.status).toBe(200);
    const text = await raw.text();
    for (const secret of ["oidc-secret-value", "sms-auth-token-value", "AC-account-sid", "clientSecret", "client_secret", "sealed", t.token])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text).providers.map((p: any) => p.provider).sort()).toEqual(["oidc", "sms"]);
  });

  it("answers 404 for an unknown environment and 400 for a malformed id", async () => {
    expect((await refused(sdk.getEnvironmentSettings({ environmentId: randomUUID() }))).status).toBe(404);
    const bad = await refused(sdk.getEnvironmentSettings({ environmentId: "not-a-uuid" }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
  });
});

describe("healthcheck, prefetch and the SDK's self-report", () => {
  it("answers healthy, accepts a valid prefetch and refuses an invalid address", async () => {
    const t = await tenant();
    expect(await sdk.getHealthcheck({ environmentId: t.environmentId })).toEqual({ status: "healthy" });
    await sdk.prefetch({ environmentId: t.environmentId, prefetchRequest: { chain: ChainEnum.Evm, publicWalletAddress: evmAddress() } });
    const bad = await refused(sdk.prefetch({ environmentId: t.environmentId, prefetchRequest: { chain: ChainEnum.Evm, publicWalletAddress: "0xnope" } }));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_wallet_address");
  });

  it("accepts the SDK's settings report (204) and nothing else changes", async () => {
    const t = await tenant();
    await sdk.logDynamicSdkSettings({
      environmentId: t.environmentId,
      sdkSettingsRequest: { dynamicContextProps: { walletConnectors: ["eth"] }, frameworkSettings: { react: { version: "18.2.0" } } },
    });
    const raw = await fetch(`${app.baseUrl}/api/v0/sdk/${t.environmentId}/sdkSettings`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(raw.status).toBe(204);
  });
});

describe("createVisit", () => {
  it("records a visit that the management analytics then count; a known wallet's visit is its user's", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const address = evmAddress();
    const { user } = await manage(t, "POST", `/environments/${env}/users`, { email: `visit-${randomUUID()}@example.com` });
    await manage(t, "POST", `/environments/${env}/users/${user.id}/wallets`, { publicWalletAddress: address, chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" });
    const connect = (a: string) =>
      sdk.createVisit({ environmentId: env, connectRequest: { address: a, chain: ChainEnum.Evm, provider: WalletProviderEnum.BrowserExtension, walletName: "metamask" } });
    await connect(address.toLowerCase());
    await connect(address);
    await connect(evmAddress());

    const visits = await app.db.any("SELECT visitor_id, user_id FROM visits WHERE environment_id = $1 ORDER BY created_at", [env]);
    expect(visits).toHaveLength(3);
    // The same wallet written in two cases is one visitor, and its owner is known.
    expect(visits[0].visitor_id).toBe(visits[1].visitor_id);
    expect(visits[0].user_id).toBe(user.id);
    expect(visits[2].user_id).toBeNull();
    const analytics = await call(app.baseUrl, "GET", `/environments/${env}/analytics/visits`, { token: t.token });
    expect(analytics.status).toBe(200);
    expect(analytics.body.visits.totalUnique).toBe(2);
    expect(analytics.body.days.reduce((n: number, d: any) => n + d.visits, 0)).toBe(3);
  });

  it("refuses an invalid address or chain and records nothing", async () => {
    const t = await tenant();
    const bad = await refused(
      sdk.createVisit({ environmentId: t.environmentId, connectRequest: { address: "not-an-address", chain: ChainEnum.Evm, provider: WalletProviderEnum.BrowserExtension, walletName: "x" } }),
    );
    expect(bad.status).toBe(400);
    const res = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/connect`, { body: { address: evmAddress(), chain: "DOGE", provider: "browserExtension", walletName: "x" } });
    expect(res.status).toBe(400);
    expect((await app.db.one("SELECT count(*)::int AS n FROM visits WHERE environment_id = $1", [t.environmentId])).n).toBe(0);
  });
});

describe("getEmailProvider", () => {
  it("is emailOnly unless magicLink is enabled, whoever the address belongs to (no account is revealed)", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const email = `known-${randomUUID()}@example.com`;
    expect(await sdk.getEmailProvider({ environmentId: env, email })).toEqual({ emailProvider: "emailOnly" });
    await manage(t, "POST", `/environments/${env}/settings/providers`, { provider: "magicLink" });
    expect(await sdk.getEmailProvider({ environmentId: env, email })).toEqual({ emailProvider: "magicLink" });
    const { user } = await manage(t, "POST", `/environments/${env}/users`, { email });
    await manage(t, "POST", `/environments/${env}/users/${user.id}/wallets`, { publicWalletAddress: evmAddress(), chain: "EVM", walletName: "metamask", walletProvider: "browserExtension" });
    expect(await sdk.getEmailProvider({ environmentId: env, email: email.toUpperCase() })).toEqual({ emailProvider: "magicLink" });
    expect((await refused(sdk.getEmailProvider({ environmentId: env, email: "not an email" }))).status).toBe(400);
  });
});

describe("getGlobalWalletsSettings", () => {
  it("answers 404 without settings, then their public fields", async () => {
    const t = await tenant();
    expect((await refused(sdk.getGlobalWalletsSettings({ environmentId: t.environmentId }))).status).toBe(404);
    await manage(t, "POST", `/environments/${t.environmentId}/globalWallet/settings`, {
      walletName: "Acme Wallet", popupPageTitle: "Acme", termsUrl: "https://acme.example/terms", privacyPolicyUrl: "https://acme.example/privacy",
    });
    const s = await sdk.getGlobalWalletsSettings({ environmentId: t.environmentId });
    expect(s).toMatchObject({ walletName: "Acme Wallet", popupPageTitle: "Acme", termsOfServiceUrl: "https://acme.example/terms", privacyPolicyUrl: "https://acme.example/privacy" });
    expect(s.enabledAt).toBeInstanceOf(Date);
  });
});

describe("scanUrl", () => {
  it("judges a URL by the environment's origins: none -> unknown, registered -> false, other -> true", async () => {
    const t = await tenant();
    const env = t.environmentId;
    const scan = (url: string) => sdk.scanUrl({ environmentId: env, scanWebsiteUrlRequest: { url } });
    expect((await scan("https://app.acme.example/page")).isMalicious ?? null).toBeNull();
    await manage(t, "POST", `/environments/${env}/origins`, { origin: "https://app.acme.example" });
    await manage(t, "POST", `/environments/${env}/origins`, { origin: "https://*.preview.acme.example" });
    expect((await scan("https://app.acme.example/login?x=1")).isMalicious).toBe(false);
    expect((await scan("https://APP.acme.example:443/")).isMalicious).toBe(false);
    expect((await scan("https://pr-7.preview.acme.example/")).isMalicious).toBe(false);
    expect((await scan("https://app.acme.example.evil.example/")).isMalicious).toBe(true);
    expect((await scan("http://app.acme.example/")).isMalicious).toBe(true);
    expect((await scan("https://preview.acme.example/")).isMalicious).toBe(true);
    const bad = await refused(scan("javascript:alert(1)"));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_url");
  });
});

describe("getNetworksConfigurationByEnvId", () => {
  it("groups enabled chains and the organization's custom networks; another organization's stay apart", async () => {
    const t = await tenant();
    const other = await tenant();
    expect(await sdk.getNetworksConfigurationByEnvId({ environmentId: t.environmentId })).toEqual([]);
    await manage(t, "PUT", `/environments/${t.environmentId}`, { chains: [{ name: "SOL", enabled: true }, { name: "BTC", enabled: false }] });
    await manage(other, "POST", `/organizations/${other.organizationId}/customNetworks`, {
      name: "Other Chain", chainId: 77, rpcUrls: ["https://rpc.other.example"], blockExplorerUrls: [], nativeCurrency: { name: "O", symbol: "O", decimals: 18 },
    });
    expect(await sdk.getNetworksConfigurationByEnvId({ environmentId: t.environmentId })).toEqual([{ chainName: "SOL", networks: [] }]);
    const networks = await sdk.getNetworksConfigurationByEnvId({ environmentId: other.environmentId });
    expect(networks).toEqual([
      {
        chainName: "EVM",
        networks: [
          expect.objectContaining({ name: "Other Chain", shortName: "Other Chain", chainId: "77", networkId: "77", iconUrls: [], blockExplorerUrls: [], nativeCurrency: { name: "O", symbol: "O", decimals: 18 } }),
        ],
      },
    ]);
  });
});
