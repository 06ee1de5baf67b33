/**
 * Where the service deliberately answers differently from the client's model: the spec's ten detailed
 * operations win over the client. Each exception names the decision (a heading of docs/decisions.md) and
 * exactly which differences it allows; the runner fails on any other difference, and on an allowance that
 * no longer matches anything (so a stale exception cannot hide a regression).
 */
export interface Exception {
  /** Heading text of the decision in docs/decisions.md. */
  decision: string;
  /** The differences allowed: a JSON path (or a pattern of paths) and a pattern of the problem reported there. */
  allow: { path: string | RegExp; problem: RegExp }[];
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

/**
 * Properties an answer carries that the client's model does not declare: allowed only where Sigil needs an
 * extension and docs/decisions.md names it (the marker, `Model.property` in backticks, must appear there;
 * test/compat/coverage.test.ts checks). Any other undeclared property fails the operation that answers it.
 */
interface AllowedUndeclared {
  model: string;
  property: string;
  reason: string;
}

/** One reason for several properties, by model. */
const extensions = (reason: string, byModel: Record<string, string[]>): AllowedUndeclared[] =>
  Object.entries(byModel).flatMap(([model, properties]) => properties.map((property) => ({ model, property, reason })));

export const allowedUndeclared: AllowedUndeclared[] = [
  ...extensions("the total number of items for paging, as the spec's lists answer it beside the page", {
    CustomHostnamesResponse: ["count"],
    DeeplinkUrlsResponse: ["count"],
    DelegatedAccessEncryptionPublicKeysUnifiedResponse: ["count"],
    EnvironmentsResponse: ["count"],
    EventsResponse: ["count"],
    ExchangeResponse: ["count"],
    ExportsResponse: ["count"],
    GatesResponse: ["count"],
    InlineResponse200: ["count"],
    OrganizationMfaSettingsResponse: ["count"],
    OrganizationsResponse: ["count"],
    OriginsResponse: ["count"],
    ProjectsResponse: ["count"],
    SdkViewsResponse: ["count"],
    TokensResponse: ["count"],
    WebhookMessagesResponse: ["count"],
    WebhooksResponse: ["count"],
  }),
  ...extensions("a resource's own timestamps (the spec's resources answer createdAt and updatedAt, response only)", {
    Allowlist: ["createdAt", "updatedAt"],
    AllowlistEntry: ["createdAt"],
    CreateProjectResponseProject: ["createdAt", "updatedAt"],
    Currency: ["updatedAt"],
    CustomField: ["createdAt", "updatedAt"],
    CustomHostname: ["createdAt", "verifiedAt"],
    CustomNetworkResponseCustomNetwork: ["createdAt", "updatedAt"],
    Event: ["createdAt", "occurredAt"],
    Exchange: ["createdAt", "updatedAt"],
    Export: ["updatedAt"],
    Gate: ["createdAt", "updatedAt"],
    GlobalWalletAccessControlResponse: ["createdAt", "updatedAt"],
    GlobalWalletSettings: ["createdAt", "updatedAt"],
    Invite: ["createdAt", "expiresAt"],
    Key: ["createdAt"],
    NameServiceResponse: ["createdAt", "updatedAt"],
    Organization: ["createdAt", "updatedAt"],
    OrganizationMember: ["createdAt", "updatedAt"],
    OrganizationMfaSettings: ["updatedAt"],
    OrganizationResponseOrganization: ["createdAt", "updatedAt"],
    Project: ["createdAt", "updatedAt"],
    Provider: ["createdAt", "updatedAt"],
    SdkView: ["updatedAt"],
    TestAccountResponse: ["createdAt"],
    UpdateProjectResponse: ["createdAt", "updatedAt"],
  }),
  ...extensions("the tenant a resource belongs to, so that a caller holding several can file it", {
    CustomHostname: ["projectEnvironmentId"],
    CustomNetworkResponseCustomNetwork: ["organizationId"],
    DeeplinkUrlResponse: ["projectEnvironmentId"],
    Exchange: ["projectEnvironmentId"],
    Export: ["environmentId"],
    Gate: ["projectEnvironmentId"],
    GlobalWalletAccessControlResponse: ["environmentId"],
    GlobalWalletSettings: ["environmentId"],
    NameServiceResponse: ["environmentId"],
    OrganizationMember: ["organizationId"],
    ProjectEnvironment: ["organizationId", "projectId"],
    TestAccountResponse: ["projectEnvironmentId"],
    UpdateProjectResponse: ["organizationId"],
    WaasDelegationCredentialsResponse: ["projectEnvironmentId"],
    Wallet: ["userId"],
  }),
  ...extensions("the resource's own id or name, which the client's model does not carry", {
    OrganizationMember: ["accountId"],
    ProjectEnvironment: ["name"],
    TestAccountResponse: ["id"],
    WaasDelegationCredentialsResponse: ["id"],
  }),
  ...extensions("the spec's User defines it (its detailed resources win over the client's model)", {
    SdkUser: ["chain", "chatNotification", "createdAt", "updatedAt", "mfaDevices", "oauthAccounts", "sessions", "wallet", "walletPublicKey", "wallets"],
    User: ["chatNotification"],
  }),
  ...extensions("the spec's custom field defines it (unique, verify, type, validationType)", {
    CustomField: ["type", "unique", "validationType", "verify"],
  }),
  ...extensions("a project answers with its environments (live and sandbox), so a new project's ids need no second call", {
    CreateProjectResponseProject: ["environments"],
    Project: ["environments"],
    UpdateProjectResponse: ["environments"],
  }),
  ...extensions("WebAuthn's own members (hints, a credential's type), passed to the browser's navigator.credentials as the standard names them", {
    MFARegisterPasskeyDeviceGetResponseRegistration: ["hints"],
    PasskeyAllowCredential: ["type"],
  }),
  ...extensions("an EC key in the JWKS needs its curve and point (RFC 7518), which the client's RSA-only JwksKey lacks", {
    JwksKey: ["crv", "x", "y"],
  }),
  ...extensions("the environment's signing key as JWKS libraries read it (kid, alg, the JWK itself)", {
    Key: ["alg", "jwk", "kid"],
  }),
  ...extensions("sign-in results go only to the party that started the flow: the PKCE verifier it must present", {
    OauthProviderLoginUrl: ["codeVerifier"],
  }),
  ...extensions("Sigil's settings that the client has no place for", {
    ProjectSettingsSecurity: ["allowedEmailDomains", "jwtSigningAlgorithm"],
    ExternalAuth: ["publicKey", "allowedAlgorithms"],
    ProjectSettingsSdk: ["collectUserData"],
  }),
  ...extensions("the window the analytics cover (and the unique visitors in it)", {
    AnalyticsEngagementResponse: ["range"],
    AnalyticsOverviewResponse: ["range"],
    AnalyticsToplineResponse: ["range"],
    AnalyticsVisitResponse: ["days", "range", "uniqueVisitors"],
    AnalyticsWalletsResponse: ["range"],
  }),
  ...extensions("Sigil's generic allowlist entry (type and value) beside the client's field per kind", { AllowlistEntry: ["type", "value"] }),
  ...extensions("a self-hosted organization's billing record (plan, status, coupon)", {
    BillingSubscription: ["coupon", "organizationId", "plan", "planChangedAt", "status"],
  }),
  ...extensions("each row's outcome of a bulk import, in input order", { BulkUserCreateResponse: ["results"] }),
  ...extensions("where an exchange rate came from", { Currency: ["source"] }),
  ...extensions("each Solana transaction's simulation as the node reported it: its program logs, its error, its cost", { SimulateTransactionResponse: ["simulations"] }),
  ...extensions("what a simulation shows beyond the signer's side: the gas the node used, every account's change, an NFT's token id", {
    SimulateTransactionResponse: ["gasUsed", "balanceChanges"],
    AssetTransfer: ["tokenId"],
  }),
  ...extensions("the kind of DNS record to create", { CustomHostnameVerificationRecord: ["type"] }),
  ...extensions("the network's definition as created (RPC and explorer URLs, native currency)", {
    CustomNetworkResponseCustomNetwork: ["blockExplorerUrls", "name", "nativeCurrency", "rpcUrls", "testnet"],
  }),
  ...extensions("Sigil's earlier name for a value the client's model also carries under its own name: both are answered, for existing callers", {
    DelegatedAccessEncryptionPublicKey: ["publicKey"],
    OpenRoomResponse: ["signature"],
    RevokeDelegatedAccessResponse: ["revokedCount", "wallets"],
    UserResponse: ["wallet", "wallets"],
    WaasAuthenticateResponse: ["expiresAt", "token"],
    WaasDelegationCredentialsResponse: ["publicKeyPemB64", "status"],
    WaasVerifyApiKeyResponse: ["valid"],
    WaasWallet: ["address", "chain", "createdAt", "delegatedAccess", "id", "keyShareBackups", "publicKey", "updatedAt", "userId"],
  }),
  ...extensions("what an event is about and who published it (the service or a client app)", { Event: ["resourceId", "source"] }),
  ...extensions("whether the credentials include a passphrase (never the passphrase)", { Exchange: ["hasPassphrase"] }),
  ...extensions("an export job's progress and file", { Export: ["byteSize", "filename", "filter", "phase", "rowCount"] }),
  ...extensions("the rule's chain as a CAIP-2 id beside the client's family", { GateRule: ["caip2"] }),
  ...extensions("the access control's mode and a domain entry's kind", {
    GlobalWalletAccessControlDomainResponse: ["type"],
    GlobalWalletAccessControlResponse: ["mode"],
  }),
  ...extensions("the global wallet's chains and terms", { GlobalWalletSettings: ["enabledChains", "termsUrl"] }),
  ...extensions("the name service's chain and owner, and the signing message's nonce and expiry", {
    NameServiceResponse: ["chainName", "ownerAddress"],
    NameServiceSigningMessage: ["expiresAt", "message", "nonce"],
  }),
  ...extensions("who the member is", { OrganizationMember: ["alias", "email"] }),
  ...extensions("whether the organization's members must pass a second factor", { OrganizationMfaSettings: ["enabled"] }),
  ...extensions("the caller's role in the organization", { OrganizationResponseOrganization: ["role"] }),
  ...extensions("where the SDK and relying parties reach the provider (authorize page, JWKS, SDK base URL)", {
    ProviderUrl: ["authorizeHtmlUrl", "providerId"],
    ProviderUrlsResponse: ["jwksUrl", "sdkBaseUrl"],
  }),
  ...extensions("the user's id at the external identity provider", { SdkUser: ["externalUserId"] }),
  ...extensions("whether the view differs from its built-in default", { SdkView: ["customized"] }),
  ...extensions("the SSO connection's settings (issuer, domains, enforcement; whether a secret is set, never the secret)", {
    SsoProvider: ["clientSecretSet", "domains", "enforce", "issuer", "protocol"],
  }),
  ...extensions("an API token's permissions and use", { Token: ["active", "lastUsedAt", "permissions"], TokenWithRaw: ["permissions"] }),
  ...extensions("the custody request's parameters the device signs", {
    TurnkeyCreateWalletAccountsRequestBodyParameters: ["deleteWithoutExport", "walletIds"],
    TurnkeyDeleteEmbeddedWalletsRequestBodyParameters: ["accounts"],
  }),
  ...extensions("when the provider's access token expires", { UserOauthAccessTokenResponse: ["expiresAt"] }),
  ...extensions("the wallet's properties, as on a user's wallet", { WalletDetail: ["properties"] }),
  ...extensions("the signing methods a rule applies to (signMessage, signTransaction, signTypedData)", { WaasPolicyRule: ["methods"] }),
  ...extensions("a webhook message's delivery state (attempts, redeliveries)", {
    WebhookMessage: ["attempts", "eventName", "nextAttemptAt", "redeliveries", "redelivery", "succeededAt"],
    WebhookMessageRedeliveryResponse: ["messageId", "redelivery"],
  }),
];

/** The text docs/decisions.md must contain for an allowed extension. */
export const decisionMarker = (a: Pick<AllowedUndeclared, "model" | "property">) => `\`${a.model}.${a.property}\``;

/** A signed-in user's credentials name the provider kind they came from, in the contract's neutral words. */
const neutralCredentialProvider: Exception = {
  decision: "Provider kinds keep the contract's neutral words",
  allow: [{ path: /^\$\.user\.verifiedCredentials\[\d+\]\.oauth_provider$/, problem: /is not a value of ProviderEnum/ }],
};

export const exceptions: Record<string, Exception> = {
  "SDKApi.oauthSignIn": neutralCredentialProvider,
  "SDKApi.oauthVerify": neutralCredentialProvider,
  "SDKApi.telegramSignIn": neutralCredentialProvider,
  "SDKApi.telegramVerify": neutralCredentialProvider,
  "SDKApi.farcasterSignIn": neutralCredentialProvider,
  "SDKApi.farcasterVerify": neutralCredentialProvider,
  // Tenancy group: the client's SsoProviderEnum has only a vendor ("okta"); Sigil says the protocol.
  "OrganizationsApi.createSsoProvider": neutralSsoProvider,
  "OrganizationsApi.getSsoProviderForOrganization": neutralSsoProvider,
  "OrganizationsApi.updateSsoProvider": neutralSsoProvider,
  "SettingsApi.createExchange": neutralExchange("$.exchange"),
  "SettingsApi.getExchange": neutralExchange("$.exchange"),
  "SettingsApi.enableExchange": neutralExchange("$.exchange"),
  "SettingsApi.disableExchange": neutralExchange("$.exchange"),
  "SettingsApi.getEnvironmentExchanges": neutralExchange("$.exchanges[0].exchange"),
  // A ramp option's provider is the ramp provider's own id of the method (e.g. "card"), never a vendor's name.
  "SDKApi.getSupportedOnramps": { decision: "Provider kinds keep the contract's neutral words", allow: [{ path: /^\$\.onramps\[\d+\]\.provider$/, problem: /is not a value of ProviderEnum/ }] },
  "SDKApi.getSupportedOfframps": { decision: "Provider kinds keep the contract's neutral words", allow: [{ path: /^\$\.offramps\[\d+\]\.provider$/, problem: /is not a value of ProviderEnum/ }] },
  "SettingsApi.getEnvironmentProviderUrls": {
    decision: "Provider kinds keep the contract's neutral words",
    allow: [{ path: "$.providerUrls[0].provider", problem: /is not a value of ProviderEnum/ }],
  },
};
