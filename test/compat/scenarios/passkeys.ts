import { SDKApi, type Configuration, type PasskeyRegisterRequest } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import { SoftwareAuthenticator, type Attestation } from "../../support/webauthn-authenticator.js";
import type { CompatContext, Scenarios } from "../harness.js";

const ORIGIN = "https://app.example.com";

/** The client as a page on ORIGIN calls it: passkey ceremonies take their relying party from the Origin. */
const onPage = (ctx: CompatContext, jwt?: string) =>
  ctx.api(SDKApi as new (c: Configuration) => SDKApi, jwt).withPreMiddleware(async ({ url, init }) => ({
    url,
    init: { ...init, headers: { ...(init.headers as Record<string, string>), Origin: ORIGIN } },
  }));

const registerRequest = (a: Attestation): PasskeyRegisterRequest =>
  ({
    id: a.id,
    rawId: a.rawId,
    type: a.type,
    clientExtensionResults: {},
    response: { attestationObject: a.response.attestationObject, clientDataJson: a.response.clientDataJSON, transports: a.response.transports },
  }) as never;

/**
 * SDKApi, passkeys: one scenario per operation, run in this order. A signed-in user registers a passkey
 * (software authenticator), signs in with it, lists, renames and removes it; then, with MFA required, a
 * new user enrols a passkey MFA device and a later sign-in passes its second factor with it.
 */
export const passkeysApi: Scenarios = {
  "SDKApi.getPasskeyRegistrationOptions": async (ctx) => {
    await ctx.rest("POST", `/environments/${ctx.tenant.environmentId}/origins`, { origin: ORIGIN });
    ctx.state.auth = new SoftwareAuthenticator();
    ctx.state.user = await signInAs(ctx.app, ctx.tenant.environmentId);
    ctx.state.options = await onPage(ctx, ctx.state.user.jwt).getPasskeyRegistrationOptions({ environmentId: ctx.tenant.environmentId });
  },
  "SDKApi.registerPasskey": async (ctx) => {
    const attestation = (ctx.state.auth as SoftwareAuthenticator).create(ctx.state.options, ORIGIN);
    const r = await onPage(ctx, ctx.state.user.jwt).registerPasskey({ environmentId: ctx.tenant.environmentId, passkeyRegisterRequest: registerRequest(attestation) });
    ctx.state.user.jwt = r.jwt;
  },
  "SDKApi.getPasskeyAuthenticationSigninOptions": async (ctx) => {
    ctx.state.signInOptions = await onPage(ctx).getPasskeyAuthenticationSigninOptions({ environmentId: ctx.tenant.environmentId });
  },
  "SDKApi.signinWithPasskey": (ctx) =>
    onPage(ctx).signinWithPasskey({
      environmentId: ctx.tenant.environmentId,
      passkeyAuthRequest: (ctx.state.auth as SoftwareAuthenticator).get(ctx.state.signInOptions, ORIGIN) as never,
    }),
  "SDKApi.getPasskeyAuthenticationOptions": (ctx) => onPage(ctx, ctx.state.user.jwt).getPasskeyAuthenticationOptions({ environmentId: ctx.tenant.environmentId }),
  "SDKApi.getUserPasskeys": async (ctx) => {
    const r = await onPage(ctx, ctx.state.user.jwt).getUserPasskeys({ environmentId: ctx.tenant.environmentId });
    ctx.state.passkeyId = r.passkeys[0].id;
  },
  "SDKApi.updatePasskey": (ctx) =>
    onPage(ctx, ctx.state.user.jwt).updatePasskey({ environmentId: ctx.tenant.environmentId, updateUserPasskeyRequest: { id: ctx.state.passkeyId, alias: "Laptop" } }),
  "SDKApi.deletePasskey": (ctx) =>
    onPage(ctx, ctx.state.user.jwt).deletePasskey({ environmentId: ctx.tenant.environmentId, deleteUserPasskeyRequest: { passkeyId: ctx.state.passkeyId } }),
  "SDKApi.registerPasskeyMfaDevice": async (ctx) => {
    await ctx.rest("PUT", `/environments/${ctx.tenant.environmentId}`, { security: { mfa: { enabled: true, required: true, methods: [{ type: "passkey", enabled: true }] } } });
    ctx.state.mfaUser = await signInAs(ctx.app, ctx.tenant.environmentId);
    ctx.state.mfaAuth = new SoftwareAuthenticator();
    ctx.state.device = await onPage(ctx, ctx.state.mfaUser.jwt).registerPasskeyMfaDevice({ environmentId: ctx.tenant.environmentId });
  },
  "SDKApi.registerPasskeyMfaDeviceVerify": (ctx) =>
    onPage(ctx, ctx.state.mfaUser.jwt).registerPasskeyMfaDeviceVerify({
      environmentId: ctx.tenant.environmentId,
      mFARegisterPasskeyDevicePostRequest: {
        id: ctx.state.device.id,
        attestation: (ctx.state.mfaAuth as SoftwareAuthenticator).create(ctx.state.device.registration, ORIGIN) as never,
      },
    }),
  "SDKApi.authenticateMfaPasskeyDevice": async (ctx) => {
    const s = await signInAs(ctx.app, ctx.tenant.environmentId, ctx.state.mfaUser.email);
    const options = await onPage(ctx, s.jwt).getPasskeyAuthenticationOptions({ environmentId: ctx.tenant.environmentId });
    return onPage(ctx, s.jwt).authenticateMfaPasskeyDevice({
      environmentId: ctx.tenant.environmentId,
      passkeyAuthRequest: { ...(ctx.state.mfaAuth as SoftwareAuthenticator).get(options, ORIGIN), createMfaToken: { singleUse: true } } as never,
    });
  },
  // The browser preflights (OPTIONS) the client declares on the passkey paths: 204 with the path's methods.
  "SDKApi.getPasskeyRegistrationOptionsOptions": ({ api, tenant }) => api(SDKApi).getPasskeyRegistrationOptionsOptions({ environmentId: tenant.environmentId }),
  "SDKApi.authenticatePasskeyOptions": ({ api, tenant }) => api(SDKApi).authenticatePasskeyOptions({ environmentId: tenant.environmentId }),
  "SDKApi.getPasskeyAuthenticationOptionsOptions": ({ api, tenant }) => api(SDKApi).getPasskeyAuthenticationOptionsOptions({ environmentId: tenant.environmentId }),
  "SDKApi.userPasskeysOptions": ({ api, tenant }) => api(SDKApi).userPasskeysOptions({ environmentId: tenant.environmentId }),
  "SDKApi.registerPasskeyMfaDeviceOptions": ({ api, tenant }) => api(SDKApi).registerPasskeyMfaDeviceOptions({ environmentId: tenant.environmentId }),
  "SDKApi.authMfaPasskeyDeviceOptions": ({ api, tenant }) => api(SDKApi).authMfaPasskeyDeviceOptions({ environmentId: tenant.environmentId }),
};
