import { ExternalJwtApi } from "@dynamic-labs/sdk-api";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import type { Scenarios } from "../harness.js";

/** ExternalJwtApi: one scenario per operation, keyed `ExternalJwtApi.<operation>`, run in this order. */
export const externalJwtApi: Scenarios = {
  "ExternalJwtApi.checkExternalJwt": async ({ api, tenant, rest }) => {
    // The environment trusts an external issuer by its public key; a token that issuer signed checks valid.
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    await rest("PUT", `/environments/${tenant.environmentId}`, {
      security: {
        externalAuth: { enabled: true, iss: "https://auth.example.com", aud: "compat-app", publicKey: await exportSPKI(publicKey) },
      },
    });
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("https://auth.example.com")
      .setAudience("compat-app")
      .setSubject("user-1")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
    const result = await api(ExternalJwtApi).checkExternalJwt({
      environmentId: tenant.environmentId,
      externalJwtCheckRequest: { encodedJwt: jwt },
    });
    if (!result.valid) throw new Error(`a token of the configured issuer checked invalid: ${result.errors?.join("; ")}`);
  },
};
