import { ExchangeKeyEnum, ProviderEnum, SettingsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** SettingsApi: one scenario per operation, keyed `SettingsApi.<operation>`, run in this order. */
export const settingsApi: Scenarios = {
  "SettingsApi.createProvider": async ({ api, tenant, state }) => {
    const provider = await api(SettingsApi).createProvider({
      environmentId: tenant.environmentId,
      providerCreateRequest: { provider: ProviderEnum.Sms, accountSid: "AC0123456789", twilioNumber: "+15555550100" },
    });
    state.providerId = provider.id;
  },
  "SettingsApi.getEnvironmentProviders": ({ api, tenant }) => api(SettingsApi).getEnvironmentProviders({ environmentId: tenant.environmentId }),
  "SettingsApi.getProvider": ({ api, state }) => api(SettingsApi).getProvider({ providerId: state.providerId }),
  "SettingsApi.updateProvider": ({ api, state }) =>
    api(SettingsApi).updateProvider({ providerId: state.providerId, providerUpdateRequest: { accountSid: "AC9876543210" } }),
  "SettingsApi.disableProvider": ({ api, state }) => api(SettingsApi).disableProvider({ providerId: state.providerId }),
  "SettingsApi.enableProvider": ({ api, state }) => api(SettingsApi).enableProvider({ providerId: state.providerId }),
  "SettingsApi.getEnvironmentProviderUrls": async ({ api, tenant, rest }) => {
    // An OAuth provider, so that the environment has a redirect URL to list.
    await rest("POST", `/environments/${tenant.environmentId}/settings/providers`, {
      provider: "oidc",
      clientId: "compat-client",
      authorizationUrl: "https://issuer.example.com/authorize",
      issuer: "https://issuer.example.com",
      tokenUrl: "https://issuer.example.com/token",
    });
    return api(SettingsApi).getEnvironmentProviderUrls({ environmentId: tenant.environmentId });
  },
  "SettingsApi.deleteProvider": ({ api, state }) => api(SettingsApi).deleteProvider({ providerId: state.providerId }),
  "SettingsApi.createExchange": async ({ api, tenant, state }) => {
    // The client's exchange keys name vendors; Sigil takes the contract's neutral words (see exceptions.ts).
    const exchange = await api(SettingsApi).createExchange({
      environmentId: tenant.environmentId,
      exchangeCreateRequest: { exchange: "custody" as ExchangeKeyEnum, socialProvider: ProviderEnum.EmailOnly },
    });
    state.exchangeId = exchange.id;
  },
  "SettingsApi.getEnvironmentExchanges": ({ api, tenant }) => api(SettingsApi).getEnvironmentExchanges({ environmentId: tenant.environmentId }),
  "SettingsApi.getExchange": ({ api, state }) => api(SettingsApi).getExchange({ exchangeId: state.exchangeId }),
  "SettingsApi.disableExchange": ({ api, state }) => api(SettingsApi).disableExchange({ exchangeId: state.exchangeId }),
  "SettingsApi.enableExchange": ({ api, state }) => api(SettingsApi).enableExchange({ exchangeId: state.exchangeId }),
  "SettingsApi.deleteExchange": ({ api, state }) => api(SettingsApi).deleteExchange({ exchangeId: state.exchangeId }),
};
