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
  // Issue 13: external JWT, chat and decentralized-social sign-in. The client names the chat and
  // decentralized-social operations after their vendors (telegram*, farcaster*); they are driven at the
  // contract's neutral paths (getChatAuth, postChatAuth, chatCheckAuth, chatSignIn, chatVerify,
  // decentralizedSocialSignIn, decentralizedSocialVerify) through test/support/neutral-words.ts.
  "externalAuthSignin",
  "externalAuthVerify",
  "getTelegramAuth",
  "postTelegramAuth",
  "telegramCheckAuth",
  "telegramSignIn",
  "telegramVerify",
  "farcasterSignIn",
  "farcasterVerify",
  // Issue 13: OAuth 2 / OpenID Connect sign-in. The client's oauthRedirectApple is the contract's
  // oauthRedirectPartner (the form_post callback), driven at the neutral path through neutral-words.ts.
  "initAuth",
  "oauthLoginUrl",
  "oauthLogin",
  "oauthRedirectCode",
  "oauthRedirectApple",
  "oauthResult",
  "oauthSignIn",
  "oauthVerify",
  "getEndUserOauthAccessToken",
  // Issue 13: MFA (TOTP, recovery codes, the e-mail factor, devices)
  "getUserMfaDevices",
  "getUserMfaMethods",
  "registerTotpMfaDevice",
  "registerTotpMfaDeviceVerify",
  "authMfaTotpDevice",
  "authenticateMfaEmail",
  "getRecoveryCodes",
  "createNewRecoveryCodes",
  "authMfaRecovery",
  "getMfaDevice",
  "updateUserMfaDevice",
  "deleteMfaDevice",
  // Issue 13: passkeys (sign-in passkeys and passkey MFA devices)
  "getPasskeyRegistrationOptions",
  "registerPasskey",
  "getPasskeyAuthenticationSigninOptions",
  "signinWithPasskey",
  "getPasskeyAuthenticationOptions",
  "getUserPasskeys",
  "updatePasskey",
  "deletePasskey",
  "registerPasskeyMfaDevice",
  "registerPasskeyMfaDeviceVerify",
  "authenticateMfaPasskeyDevice",
]);
