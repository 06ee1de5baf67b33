import { randomUUID } from "node:crypto";
import { SDKApi } from "@dynamic-labs/sdk-api";
import { signInAs } from "../../support/sessions.js";
import type { Scenarios } from "../harness.js";
import { lastMailedCode, lastTextedCode } from "./dev-messages.js";

const phone = { phoneCountryCode: "1", phoneNumber: "4155550123", isoCountryCode: "US" };
const linkedPhone = { phoneCountryCode: "44", phoneNumber: "7911123456", isoCountryCode: "GB" };

/**
 * SDKApi, e-mail and SMS codes (run in this order). The app runs with the dev mailbox and SMS outbox in a
 * data directory of its own (test/compat/verifications.test.ts): the scenarios read the codes from there.
 */
export const verificationsApi: Scenarios = {
  "SDKApi.createEmailVerification": async ({ api, tenant, state }) => {
    state.email = `compat-code-${randomUUID()}@example.com`;
    const r = await api(SDKApi).createEmailVerification({ environmentId: tenant.environmentId, emailVerificationCreateRequest: { email: state.email } });
    state.emailVerification = r.verificationUUID;
  },
  "SDKApi.retryEmailVerification": ({ api, tenant, state }) =>
    api(SDKApi).retryEmailVerification({
      environmentId: tenant.environmentId,
      emailVerificationRetryRequest: { verificationUUID: state.emailVerification, email: state.email },
    }),
  "SDKApi.signInWithEmailVerification": async ({ api, app, tenant, state }) => {
    const verificationToken = await lastMailedCode(app.config.dataDir, state.email);
    return api(SDKApi).signInWithEmailVerification({
      environmentId: tenant.environmentId,
      emailVerificationVerifyRequest: { verificationUUID: state.emailVerification, verificationToken },
    });
  },
  "SDKApi.verifyEmailVerification": async ({ api, app, tenant, state }) => {
    state.endUser = await signInAs(app, tenant.environmentId);
    const email = `compat-link-${randomUUID()}@example.com`;
    const { verificationUUID } = await api(SDKApi).createEmailVerification({ environmentId: tenant.environmentId, emailVerificationCreateRequest: { email } });
    const verificationToken = await lastMailedCode(app.config.dataDir, email);
    return api(SDKApi, state.endUser.jwt).verifyEmailVerification({
      environmentId: tenant.environmentId,
      emailVerificationVerifyRequest: { verificationUUID, verificationToken },
    });
  },
  "SDKApi.createSmsVerification": async ({ api, rest, tenant, state }) => {
    // SMS sign-in needs the environment's sms provider (the SMS gateway account; the dev outbox needs no credentials).
    await rest("POST", `/environments/${tenant.environmentId}/settings/providers`, { provider: "sms" });
    const r = await api(SDKApi).createSmsVerification({ environmentId: tenant.environmentId, smsVerificationCreateRequest: phone });
    state.smsVerification = r.verificationUUID;
  },
  "SDKApi.retrySmsVerification": ({ api, tenant, state }) =>
    api(SDKApi).retrySmsVerification({ environmentId: tenant.environmentId, smsVerificationRetryRequest: { verificationUUID: state.smsVerification, ...phone } }),
  "SDKApi.signInWithSmsVerification": async ({ api, app, tenant, state }) => {
    const verificationToken = await lastTextedCode(app.config.dataDir, `+${phone.phoneCountryCode}${phone.phoneNumber}`);
    return api(SDKApi).signInWithSmsVerification({
      environmentId: tenant.environmentId,
      smsVerificationVerifyRequest: { verificationUUID: state.smsVerification, verificationToken },
    });
  },
  "SDKApi.verifySmsVerification": async ({ api, app, tenant, state }) => {
    const { verificationUUID } = await api(SDKApi).createSmsVerification({ environmentId: tenant.environmentId, smsVerificationCreateRequest: linkedPhone });
    const verificationToken = await lastTextedCode(app.config.dataDir, `+${linkedPhone.phoneCountryCode}${linkedPhone.phoneNumber}`);
    return api(SDKApi, state.endUser.jwt).verifySmsVerification({
      environmentId: tenant.environmentId,
      smsVerificationVerifyRequest: { verificationUUID, verificationToken },
    });
  },
};
