/**
 * The SDK operations (`/sdk/{environmentId}/...`, class SDKApi) built so far: these join the conformance
 * suite, with the browser preflights (OPTIONS) the client declares on their paths. The SDK half lands issue
 * by issue; an operation is listed here when its issue lands, so the suite then demands a scenario for it.
 */
export const builtSdkOperations: ReadonlySet<string> = new Set([
  // Issue 12: sessions
  "getJwksByEnvironmentId",
  "getJwksJsonByEnvironmentId",
  "sessionCheck",
  "refreshAuth",
  "revokeSession",
  // Issue 12: wallet signatures
  "getNonce",
  "verify",
  "verifyLink",
  "verifyUnlink",
  "verifyTransfer",
  "verifyMergeUsers",
  "mergeUsers",
  // Issue 12: email and SMS codes
  "createEmailVerification",
  "retryEmailVerification",
  "verifyEmailVerification",
  "signInWithEmailVerification",
  "createSmsVerification",
  "retrySmsVerification",
  "verifySmsVerification",
  "signInWithSmsVerification",
  // Issue 12: the user's own account
  "getAuthenticatedUser",
  "updateSelf",
  "hardDeleteUser",
  "getUserFieldsCheck",
  "selectUserWallet",
  // Issue 12: what a client app loads first
  "getEnvironmentSettings",
  "getHealthcheck",
  "createVisit",
  "prefetch",
  "logServiceSdkSettings",
  // The client names logServiceSdkSettings after its vendor; its path is the contract's.
  "logDynamicSdkSettings",
  "getEmailProvider",
  "getGlobalWalletsSettings",
  "scanUrl",
  "getNetworksConfigurationByEnvId",
]);
