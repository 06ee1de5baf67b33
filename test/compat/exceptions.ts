/**
 * Where the service deliberately answers differently from the client's model: the spec's ten detailed
 * operations win over the client. Each exception names the decision (a heading of docs/decisions.md) and
 * exactly which differences it allows; the runner fails on any other difference, and on an allowance that
 * no longer matches anything (so a stale exception cannot hide a regression).
 */
export interface Exception {
  /** Heading text of the decision in docs/decisions.md. */
  decision: string;
  /** The differences allowed: a JSON path and a pattern of the problem reported there. */
  allow: { path: string; problem: RegExp }[];
}

/** Tenancy group: SSO providers are named by protocol (oidc | saml), not by vendor. */
const neutralSsoProvider: Exception = {
  decision: "SSO providers are named by their protocol",
  allow: [{ path: "$.provider", problem: /is not a value of SsoProviderEnum/ }],
};

/** Settings group: the client's exchange keys and OAuth provider values all name vendors. */
const neutralExchange = (path: string): Exception => ({
  decision: "Exchange kinds keep the contract's neutral words",
  allow: [{ path, problem: /is not a value of ExchangeKeyEnum/ }],
});

export const exceptions: Record<string, Exception> = {
  // Tenancy group: the client's SsoProviderEnum has only a vendor ("okta"); Sigil says the protocol.
  "OrganizationsApi.createSsoProvider": neutralSsoProvider,
  "OrganizationsApi.getSsoProviderForOrganization": neutralSsoProvider,
  "OrganizationsApi.updateSsoProvider": neutralSsoProvider,
  "SettingsApi.createExchange": neutralExchange("$.exchange"),
  "SettingsApi.getExchange": neutralExchange("$.exchange"),
  "SettingsApi.enableExchange": neutralExchange("$.exchange"),
  "SettingsApi.disableExchange": neutralExchange("$.exchange"),
  "SettingsApi.getEnvironmentExchanges": neutralExchange("$.exchanges[0].exchange"),
  "SettingsApi.getEnvironmentProviderUrls": {
    decision: "Provider kinds keep the contract's neutral words",
    allow: [{ path: "$.providerUrls[0].provider", problem: /is not a value of ProviderEnum/ }],
  },
  "WaasApi.getWaasWalletByWalletId": {
    decision: "WaaS wallets report their key scheme as ONE_OF_ONE",
    allow: [{ path: "$.wallet.thresholdSignatureScheme", problem: /is not a value of ThresholdSignatureScheme/ }],
  },
};
