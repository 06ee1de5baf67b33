import type { JsonObject } from "@bufbuild/protobuf";
import type { CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import type { CustomNetworkRecord } from "../../db/repositories/custom-networks.js";
import type { GlobalWalletSettingsRecord } from "../../db/repositories/global-wallet.js";
import type { ProviderRecord } from "../../db/repositories/providers.js";
import type { NetworkGroup, SdkEnvironmentView } from "../../domain/sdk-settings/service.js";
import { redirectUrlFor } from "../../domain/providers/service.js";
import { toEnvironmentSettings } from "../environments/mappers.js";
import { str, ts } from "../mappers.js";

/**
 * A provider as the SDK sees it: an allow-list of public fields. The management view's kind-specific
 * settings (account ids, sender numbers, partner keys) and the sealed client secret are never copied.
 */
function toSdkProvider(p: ProviderRecord, publicUrl: string) {
  return {
    id: p.id,
    provider: p.provider,
    enabledAt: ts(p.enabledAt),
    clientId: str(p.clientId),
    authorizationUrl: str(p.authorizationUrl),
    baseAuthUrl: str(p.baseAuthUrl),
    redirectUrl: redirectUrlFor(publicUrl, p.environmentId, p.provider),
    scopes: str(p.scopes),
    defaultChainId: p.defaultChainId ?? 0,
    defaultChain: str(p.defaultChain),
    keyExportUrl: str(p.keyExportUrl),
  };
}

function toSdkCustomField(f: CustomFieldRecord) {
  return {
    name: f.name,
    required: f.required,
    enabled: f.enabled,
    unique: f.unique,
    verify: f.verify,
    type: f.type,
    validationType: f.validationType,
    label: str(f.label),
    position: f.position,
    validationRules: { regex: str(f.regex), validOptions: f.validOptions, checkboxText: str(f.checkboxText), unique: f.unique },
  };
}

function toNetwork(n: CustomNetworkRecord, chain: string) {
  return {
    name: n.name,
    shortName: n.name,
    vanityName: n.name,
    chain,
    chainId: String(n.chainId),
    networkId: String(n.chainId),
    isTestnet: n.testnet,
    iconUrls: n.iconUrl ? [n.iconUrl] : [],
    nativeCurrency: { ...n.nativeCurrency, iconUrl: str(n.nativeCurrency.iconUrl) },
    rpcUrls: n.rpcUrls,
    blockExplorerUrls: n.blockExplorerUrls,
  };
}

export const toNetworkGroups = (groups: NetworkGroup[]) =>
  groups.map((g) => ({ chainName: g.chainName, networks: g.networks.map((n) => toNetwork(n, g.chainName)) }));

export function toProjectSettings(view: SdkEnvironmentView, publicUrl: string) {
  const s = toEnvironmentSettings(view.settings);
  const external = (s.security?.externalAuth ?? {}) as { enabled?: boolean; iss?: string; aud?: string; jwksUrl?: string };
  return {
    environmentName: view.environmentName,
    chains: s.chains,
    customFields: view.customFields.map(toSdkCustomField),
    kyc: s.kyc,
    design: (view.settings.design ?? {}) as JsonObject,
    general: s.general ?? {},
    privacy: (view.settings.privacy ?? {}) as JsonObject,
    providers: view.providers.map((p) => toSdkProvider(p, publicUrl)),
    sdk: s.sdk ?? {},
    security: {
      jwtDuration: s.security?.jwtDuration,
      mfa: s.security?.mfa,
      auth: s.security?.auth,
      hCaptcha: s.security?.hCaptcha,
      // The public half of external-token sign-in: its key material stays on the management surface.
      externalAuth: { enabled: Boolean(external.enabled), iss: str(external.iss), aud: str(external.aud), jwksUrl: str(external.jwksUrl) },
    },
    networks: toNetworkGroups(view.networks),
  };
}

export function toSdkGlobalWalletSettings(s: GlobalWalletSettingsRecord) {
  return {
    id: s.id,
    walletName: s.walletName,
    popupPageTitle: str(s.popupPageTitle),
    walletIconUrl: str(s.walletIconUrl),
    customCssUrl: str(s.customCssUrl),
    termsOfServiceUrl: str(s.termsUrl),
    privacyPolicyUrl: str(s.privacyPolicyUrl),
    enabledAt: ts(s.enabledAt),
  };
}
