import { randomUUID } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import { AuthenticatorApp } from "../../support/totp-app.js";
import type { Scenarios } from "../harness.js";
import { lastMailedCode } from "./dev-messages.js";

/**
 * SDKApi, the end user's second factors (run in this order): the environment offers MFA (not required), a
 * user enrols a TOTP device, passes it, reads and renews recovery codes, passes with one, links a second
 * address and passes an e-mail code sent to it (never the address the session signed in with; read from the dev mailbox of test/compat/sdk-mfa.test.ts's data directory), then manages devices.
 */
export const sdkMfaApi: Scenarios = {
  "SDKApi.getUserMfaMethods": async ({ api, rest, app, tenant, state }) => {
    await rest("PUT", `/environments/${tenant.environmentId}`, { security: { mfa: { enabled: true, required: false } } });
    state.email = `compat-mfa-${randomUUID()}@example.com`;
    state.jwt = (await signInAs(app, tenant.environmentId, state.email)).jwt;
    return api(SDKApi, state.jwt).getUserMfaMethods({ environmentId: tenant.environmentId, verifiedOnly: false });
  },
  "SDKApi.registerTotpMfaDevice": async ({ api, tenant, state }) => {
    state.device = await api(SDKApi, state.jwt).registerTotpMfaDevice({ environmentId: tenant.environmentId });
    state.phone = new AuthenticatorApp(state.device.secret);
  },
  "SDKApi.registerTotpMfaDeviceVerify": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).registerTotpMfaDeviceVerify({
      environmentId: tenant.environmentId,
      mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: state.phone.next() },
    }),
  "SDKApi.authMfaTotpDevice": async ({ api, tenant, state }) => {
    const r = await api(SDKApi, state.jwt).authMfaTotpDevice({
      environmentId: tenant.environmentId,
      mFAAuthTotpDevicePostRequest: { id: state.device.id, code: state.phone.lastCode(), createMfaToken: { singleUse: true } },
    });
    state.jwt = r.jwt;
    state.mfaToken = r.mfaToken;
  },
  "SDKApi.getUserMfaDevices": ({ api, tenant, state }) => api(SDKApi, state.jwt).getUserMfaDevices({ environmentId: tenant.environmentId }),
  "SDKApi.getMfaDevice": ({ api, tenant, state }) => api(SDKApi, state.jwt).getMfaDevice({ environmentId: tenant.environmentId, mfaDeviceId: state.device.id }),
  "SDKApi.getRecoveryCodes": ({ api, tenant, state }) => api(SDKApi, state.jwt).getRecoveryCodes({ environmentId: tenant.environmentId }),
  "SDKApi.createNewRecoveryCodes": async ({ api, tenant, state }) => {
    state.recoveryCodes = (await api(SDKApi, state.jwt).createNewRecoveryCodes({ environmentId: tenant.environmentId })).recoveryCodes;
  },
  "SDKApi.authMfaRecovery": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).authMfaRecovery({ environmentId: tenant.environmentId, mFAAuthRecoveryDevicePostRequest: { code: state.recoveryCodes[0] } }),
  "SDKApi.authenticateMfaEmail": async ({ api, app, tenant, state }) => {
    // The address that signed the session in is not a second factor of it: the code goes to a second one.
    const second = `compat-mfa-second-${randomUUID()}@example.com`;
    const link = await api(SDKApi).createEmailVerification({ environmentId: tenant.environmentId, emailVerificationCreateRequest: { email: second } });
    const linked = await api(SDKApi, state.jwt).verifyEmailVerification({
      environmentId: tenant.environmentId,
      emailVerificationVerifyRequest: { verificationUUID: link.verificationUUID, verificationToken: await lastMailedCode(app.config.dataDir, second) },
    });
    state.jwt = linked.jwt;
    const { verificationUUID } = await api(SDKApi).createEmailVerification({ environmentId: tenant.environmentId, emailVerificationCreateRequest: { email: second } });
    const verificationToken = await lastMailedCode(app.config.dataDir, second);
    return api(SDKApi, state.jwt).authenticateMfaEmail({ environmentId: tenant.environmentId, emailVerificationMfaRequest: { verificationUUID, verificationToken } });
  },
  "SDKApi.updateUserMfaDevice": async ({ api, tenant, state }) => {
    const client = api(SDKApi, state.jwt);
    const second = await client.registerTotpMfaDevice({ environmentId: tenant.environmentId });
    await client.registerTotpMfaDeviceVerify({
      environmentId: tenant.environmentId,
      mFARegisterTotpDevicePostRequest: { type: "totp" as never, code: new AuthenticatorApp(second.secret).next() },
    });
    return client.updateUserMfaDevice({ environmentId: tenant.environmentId, mfaDeviceId: second.id, mFAUpdateDeviceRequest: { _default: true } });
  },
  "SDKApi.deleteMfaDevice": ({ api, tenant, state }) =>
    api(SDKApi, state.jwt).deleteMfaDevice({ environmentId: tenant.environmentId, mfaDeviceId: state.device.id, xMfaAuthToken: state.mfaToken }),
  // The browser preflights (OPTIONS) the client declares on the MFA paths: 204 with the path's Allow header.
  "SDKApi.listMfaDevicesOptions": ({ api, tenant }) => api(SDKApi).listMfaDevicesOptions({ environmentId: tenant.environmentId }),
  "SDKApi.listMfaMethodsOptions": ({ api, tenant }) => api(SDKApi).listMfaMethodsOptions({ environmentId: tenant.environmentId }),
  "SDKApi.registerTotpMfaDeviceOptions": ({ api, tenant }) => api(SDKApi).registerTotpMfaDeviceOptions({ environmentId: tenant.environmentId }),
  "SDKApi.authMfaTotpDeviceOptions": ({ api, tenant }) => api(SDKApi).authMfaTotpDeviceOptions({ environmentId: tenant.environmentId }),
  "SDKApi.authMfaEmailDeviceOptions": ({ api, tenant }) => api(SDKApi).authMfaEmailDeviceOptions({ environmentId: tenant.environmentId }),
  "SDKApi.authMfaRecoveryOptions": ({ api, tenant }) => api(SDKApi).authMfaRecoveryOptions({ environmentId: tenant.environmentId }),
  "SDKApi.recoveryCodesOptions": ({ api, tenant }) => api(SDKApi).recoveryCodesOptions({ environmentId: tenant.environmentId }),
  "SDKApi.getMfaDeviceOptions": ({ api, tenant, state }) => api(SDKApi).getMfaDeviceOptions({ environmentId: tenant.environmentId, mfaDeviceId: state.device.id }),
};
