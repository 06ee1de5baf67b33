import { SDKApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/**
 * The browser preflights (OPTIONS) the client declares on the SDK paths of issue 12, one scenario each: a
 * plain OPTIONS answers 204 with the Allow header of the methods the path has. The list is the client's
 * OPTIONS operations on the paths of the built SDK operations (test/compat/sdk-scope.ts).
 */
export const sdkPreflights: Scenarios = {
  // OPTIONS /sdk/{environmentId}/emailVerifications/create
  "SDKApi.createEmailVerificationOptions": ({ api, tenant }) => api(SDKApi).createEmailVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/smsVerifications/create
  "SDKApi.createSmsVerificationOptions": ({ api, tenant }) => api(SDKApi).createSmsVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/emailProvider
  "SDKApi.emailProviderOptions": ({ api, tenant }) => api(SDKApi).emailProviderOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/healthcheck
  "SDKApi.getHealthcheckOptions": ({ api, tenant }) => api(SDKApi).getHealthcheckOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/users/check
  "SDKApi.getUserFieldsCheckOptions": ({ api, tenant }) => api(SDKApi).getUserFieldsCheckOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/globalWallets/settings
  "SDKApi.globalWalletsSettingsOptions": ({ api, tenant }) => api(SDKApi).globalWalletsSettingsOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/.well-known/jwks
  "SDKApi.jwksOptions": ({ api, tenant }) => api(SDKApi).jwksOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/users/merge
  "SDKApi.mergeUsersOptions": ({ api, tenant }) => api(SDKApi).mergeUsersOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/networks
  "SDKApi.networksOptions": ({ api, tenant }) => api(SDKApi).networksOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/nonce
  "SDKApi.nonceOptions": ({ api, tenant }) => api(SDKApi).nonceOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/connect
  "SDKApi.optionsConnect": ({ api, tenant }) => api(SDKApi).optionsConnect({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/refresh
  "SDKApi.refreshOptions": ({ api, tenant }) => api(SDKApi).refreshOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/emailVerifications/retry
  "SDKApi.retryEmailVerificationOptions": ({ api, tenant }) => api(SDKApi).retryEmailVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/smsVerifications/retry
  "SDKApi.retrySmsVerificationOptions": ({ api, tenant }) => api(SDKApi).retrySmsVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/revoke
  "SDKApi.revokeSessionOption": ({ api, tenant }) => api(SDKApi).revokeSessionOption({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/scan/websiteUrl
  "SDKApi.scanUrlOptions": ({ api, tenant }) => api(SDKApi).scanUrlOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/sdkSettings
  "SDKApi.sdkSettingsOptions": ({ api, tenant }) => api(SDKApi).sdkSettingsOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/users/wallets/selection
  "SDKApi.selectUserWalletOptions": ({ api, tenant }) => api(SDKApi).selectUserWalletOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/session
  "SDKApi.sessionCheckOptions": ({ api, tenant }) => api(SDKApi).sessionCheckOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/settings
  "SDKApi.settingsOptions": ({ api, tenant }) => api(SDKApi).settingsOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/emailVerifications/signin
  "SDKApi.signInWithEmailVerificationOptions": ({ api, tenant }) => api(SDKApi).signInWithEmailVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/smsVerifications/signin
  "SDKApi.signInWithSmsVerificationOptions": ({ api, tenant }) => api(SDKApi).signInWithSmsVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/users
  "SDKApi.usersOptions": ({ api, tenant }) => api(SDKApi).usersOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/emailVerifications/verify
  "SDKApi.verifyEmailVerificationOptions": ({ api, tenant }) => api(SDKApi).verifyEmailVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/verify/link
  "SDKApi.verifyLinkOptions": ({ api, tenant }) => api(SDKApi).verifyLinkOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/verify/merge
  "SDKApi.verifyMergeUsersOptions": ({ api, tenant }) => api(SDKApi).verifyMergeUsersOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/verify
  "SDKApi.verifyOptions": ({ api, tenant }) => api(SDKApi).verifyOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/prefetch
  "SDKApi.verifyPrefetch": ({ api, tenant }) => api(SDKApi).verifyPrefetch({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/smsVerifications/verify
  "SDKApi.verifySmsVerificationOptions": ({ api, tenant }) => api(SDKApi).verifySmsVerificationOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/verify/transfer
  "SDKApi.verifyTransferOptions": ({ api, tenant }) => api(SDKApi).verifyTransferOptions({ environmentId: tenant.environmentId }),
  // OPTIONS /sdk/{environmentId}/verify/unlink
  "SDKApi.verifyUnlinkOptions": ({ api, tenant }) => api(SDKApi).verifyUnlinkOptions({ environmentId: tenant.environmentId }),
};
