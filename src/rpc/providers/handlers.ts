import type { ConnectRouter } from "@connectrpc/connect";
import { ProvidersService } from "../../gen/sigil/providers/v0/providers_service_pb.js";
import { OauthAuthorizeHtmlRequestSchema } from "../../gen/sigil/oauth/v0/oauth_service_pb.js";
import type { ProviderRecord } from "../../db/repositories/providers.js";
import type { Deps } from "../../domain/deps.js";
import * as providers from "../../domain/providers/service.js";
import { PROVIDER_PRESETS } from "../../domain/providers/presets.js";
import { fieldRules } from "../method-options.js";
import { orNull, str, ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

/** Settings kept in the jsonb column: the kind-specific fields, camelCase as in the API. */
const SETTINGS_FIELDS = [
  "providerProjectId", "partnerKeyId", "partnerTeamId", "commerceStore", "accountSid", "smsNumber", "mailIpPoolName",
  "entryPointVersion", "kernelVersion", "ecdsaProviderType", "factoryAddress", "paymasterAddress", "passkeyAddress",
  "sessionAddress", "salt", "domain", "returnUrl", "cancelUrl", "enabledCountries", "multichainAccountAbstractionProviders",
  "createNewAccounts", "enableKernelV3Migration", "enableEip7702",
] as const;

/** The settings an update may change (optional strings in UpdateProviderRequest). */
const UPDATABLE_SETTINGS = [
  "providerProjectId", "partnerKeyId", "partnerTeamId", "commerceStore", "accountSid", "smsNumber", "domain", "returnUrl", "cancelUrl",
] as const;

/** The provider kinds that sign in through OAuth: declared once, on the authorizeHtml operation's providerType. */
const OAUTH_KINDS = new Set(fieldRules(OauthAuthorizeHtmlRequestSchema.field.providerType)?.allowed ?? []);

function toProvider(p: ProviderRecord, publicUrl: string) {
  return {
    ...(p.settings as Record<string, never>),
    provider: p.provider,
    id: p.id,
    enabledAt: ts(p.enabledAt),
    clientId: str(p.clientId),
    // The client secret is write-only: it is sealed at rest and never returned.
    authorizationUrl: str(p.authorizationUrl),
    baseAuthUrl: str(p.baseAuthUrl),
    redirectUrl: providers.redirectUrlFor(publicUrl, p.environmentId, p.provider),
    scopes: str(p.scopes),
    defaultChainId: p.defaultChainId ?? 0,
    defaultChain: str(p.defaultChain),
    keyExportUrl: str(p.keyExportUrl),
    termsAcceptedByUser: p.termsUrl
      ? { termsUrl: p.termsUrl, email: str(p.termsAcceptedEmail), userId: str(p.termsAcceptedByMemberId), createdAt: ts(p.termsAcceptedAt) }
      : undefined,
    issuer: str(p.issuer),
    tokenUrl: str(p.tokenUrl),
    userinfoUrl: str(p.userinfoUrl),
    preset: str(p.preset),
    createdAt: ts(p.createdAt),
    updatedAt: ts(p.updatedAt),
  };
}

/** Optional text of an update: absent keeps, "" clears. */
const change = (s: string | undefined): string | null | undefined => (s === undefined ? undefined : orNull(s));

export function registerProviders(router: ConnectRouter, deps: Deps) {
  const publicUrl = deps.config.publicUrl;
  const view = (p: ProviderRecord) => ({ provider: toProvider(p, publicUrl) });
  router.service(ProvidersService, {
    async listProviders(req, ctx) {
      const access = environmentOf(ctx);
      const list = await providers.listProviders(deps, access);
      return { providers: list.map((p) => toProvider(p, publicUrl)) };
    },
    async createProvider(req, ctx) {
      const access = environmentOf(ctx);
      const settings: Record<string, unknown> = {};
      for (const f of SETTINGS_FIELDS) {
        const v = (req as unknown as Record<string, unknown>)[f];
        if (v !== "" && v !== false && !(Array.isArray(v) && v.length === 0)) settings[f] = v;
      }
      // Nested messages are stored as plain JSON.
      settings.enabledCountries = req.enabledCountries.map((c) => ({ isoCountryCode: c.isoCountryCode, phoneCountryCode: c.phoneCountryCode }));
      settings.multichainAccountAbstractionProviders = req.multichainAccountAbstractionProviders.map((m) => ({
        clientId: m.clientId,
        chain: m.chain,
        default: m.default,
      }));
      const created = await providers.createProvider(deps, access, {
        provider: req.provider,
        clientId: orNull(req.clientId),
        clientSecret: orNull(req.clientSecret),
        authorizationUrl: orNull(req.authorizationUrl),
        baseAuthUrl: orNull(req.baseAuthUrl),
        scopes: orNull(req.scopes),
        defaultChainId: req.defaultChainId || null,
        defaultChain: orNull(req.defaultChain),
        keyExportUrl: orNull(req.keyExportUrl),
        termsUrl: orNull(req.termsUrl),
        issuer: orNull(req.issuer),
        tokenUrl: orNull(req.tokenUrl),
        userinfoUrl: orNull(req.userinfoUrl),
        preset: orNull(req.preset),
        settings,
      });
      return view(created);
    },
    async getProvider(req, ctx) {
      const access = environmentOf(ctx);
      return view(await providers.getProvider(deps, access, req.providerId));
    },
    async disableProvider(req, ctx) {
      const access = environmentOf(ctx);
      return view(await providers.setProviderEnabled(deps, access, req.providerId, false));
    },
    async enableProvider(req, ctx) {
      const access = environmentOf(ctx);
      return view(await providers.setProviderEnabled(deps, access, req.providerId, true));
    },
    async updateProvider(req, ctx) {
      const access = environmentOf(ctx);
      const settings: Record<string, unknown> = {};
      for (const f of UPDATABLE_SETTINGS) {
        const v = req[f];
        if (v !== undefined) settings[f] = v === "" ? null : v;
      }
      if (req.enabledCountries.length > 0)
        settings.enabledCountries = req.enabledCountries.map((c) => ({ isoCountryCode: c.isoCountryCode, phoneCountryCode: c.phoneCountryCode }));
      const updated = await providers.updateProvider(deps, access, req.providerId, {
        clientId: change(req.clientId),
        clientSecret: change(req.clientSecret),
        authorizationUrl: change(req.authorizationUrl),
        baseAuthUrl: change(req.baseAuthUrl),
        scopes: change(req.scopes),
        defaultChainId: req.defaultChainId === undefined ? undefined : req.defaultChainId || null,
        defaultChain: change(req.defaultChain),
        keyExportUrl: change(req.keyExportUrl),
        issuer: change(req.issuer),
        tokenUrl: change(req.tokenUrl),
        userinfoUrl: change(req.userinfoUrl),
        settings,
      });
      return view(updated);
    },
    async deleteProvider(req, ctx) {
      const access = environmentOf(ctx);
      await providers.deleteProvider(deps, access, req.providerId);
      return {};
    },
    async getProviderUrls(req, ctx) {
      const access = environmentOf(ctx);
      const list = await providers.listProviders(deps, access);
      const sdkBaseUrl = `${publicUrl}/api/v0/sdk/${access.environmentId}`;
      return {
        providerUrls: list
          .filter((p) => OAUTH_KINDS.has(p.provider))
          .map((p) => {
            const authorizeHtmlUrl = `${sdkBaseUrl}/providers/${p.provider}/authorizeHtml`;
            return {
              provider: p.provider,
              providerId: p.id,
              redirectUrl: providers.redirectUrlFor(publicUrl, access.environmentId, p.provider),
              authorizeHtmlUrl,
              // Required by the published client: where the sign-in starts when the kind has no endpoint.
              authorizationUrl: p.authorizationUrl ?? authorizeHtmlUrl,
              scopes: str(p.scopes),
            };
          }),
        sdkBaseUrl,
        jwksUrl: `${sdkBaseUrl}/.well-known/jwks.json`,
      };
    },
    async listProviderPresets(req, ctx) {
      environmentOf(ctx);
      return { presets: PROVIDER_PRESETS.map((p) => ({ ...p })) };
    },
  });
}
