import type { ConnectRouter } from "@connectrpc/connect";
import { ProvidersService } from "../../gen/sigil/settings/v0/providers_service_pb.js";
import type { ProviderRecord } from "../../db/repositories/providers.js";
import type { Deps } from "../../domain/deps.js";
import * as providers from "../../domain/providers/service.js";
import { environmentScope } from "../../domain/tenancy/scope.js";
import { apiCaller } from "../context.js";
import { orNull, str, ts } from "../mappers.js";


/** Settings kept in the jsonb column: the kind-specific fields, camelCase as in the API. */
const SETTINGS_FIELDS = [
  "providerProjectId", "partnerKeyId", "partnerTeamId", "commerceStore", "accountSid", "smsNumber", "mailIpPoolName",
  "entryPointVersion", "kernelVersion", "ecdsaProviderType", "factoryAddress", "paymasterAddress", "passkeyAddress",
  "sessionAddress", "salt", "domain", "returnUrl", "cancelUrl", "enabledCountries", "multichainAccountAbstractionProviders",
  "createNewAccounts", "enableKernelV3Migration", "enableEip7702",
] as const;

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
  };
}

export function registerProviders(router: ConnectRouter, deps: Deps) {
  const view = (p: ProviderRecord) => ({ provider: toProvider(p, deps.config.publicUrl) });
  router.service(ProvidersService, {
    async listProviders(req, ctx) {
      const list = await providers.listProviders(deps, environmentScope(apiCaller(ctx), req.environmentId));
      return { providers: list.map((p) => toProvider(p, deps.config.publicUrl)) };
    },
    async createProvider(req, ctx) {
      const p = apiCaller(ctx);
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
      const created = await providers.createProvider(deps, p, environmentScope(p, req.environmentId), {
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
        settings,
      });
      return view(created);
    },
    async getProvider(req, ctx) {
      return view(await providers.getProvider(deps, apiCaller(ctx).environmentId, req.providerId));
    },
    async disableProvider(req, ctx) {
      return view(await providers.setProviderEnabled(deps, apiCaller(ctx).environmentId, req.providerId, false));
    },
    async enableProvider(req, ctx) {
      return view(await providers.setProviderEnabled(deps, apiCaller(ctx).environmentId, req.providerId, true));
    },
  });
}
