import { badRequest, conflict, notFound } from "../../errors.js";
import * as providers from "../../db/repositories/providers.js";
import { findMember } from "../../db/repositories/tenancy.js";
import type { ApiTokenPrincipal } from "../../rpc/context.js";
import type { Deps } from "../deps.js";

export type CreateProviderInput = Omit<
  providers.NewProvider,
  "termsAcceptedByMemberId" | "termsAcceptedEmail" | "termsAcceptedAt"
> & { clientSecret: string | null };

/** The associated data that binds a sealed client secret to its provider row. */
export const clientSecretAad = (providerId: string) => `provider:${providerId}:client_secret`;

/** The callback URL to register with the external provider: the SDK's OAuth redirect endpoint. */
export function redirectUrlFor(publicUrl: string, environmentId: string, provider: string): string {
  return `${publicUrl}/api/v0/sdk/${environmentId}/providers/${provider}/redirect`;
}

/**
 * Configures a provider for the environment, enabled at once. The client secret is sealed at rest; when
 * terms were shown, their acceptance is recorded against the token's member.
 */
export async function createProvider(deps: Deps, caller: ApiTokenPrincipal, environmentId: string, input: CreateProviderInput) {
  // Generic issuers have no preset: they are only usable with their client id and authorization endpoint.
  if (input.provider === "oidc" || input.provider === "oauth2") {
    if (!input.clientId) throw badRequest("client_id_required", `clientId is required for provider ${input.provider}`);
    if (!input.authorizationUrl) throw badRequest("authorization_url_required", `authorizationUrl is required for provider ${input.provider}`);
  }
  if (await providers.providerKindExists(deps.db, environmentId, input.provider))
    throw conflict("provider_already_exists", `provider ${input.provider} is already configured for this environment`);
  const member = input.termsUrl && caller.memberId ? await findMember(deps.db, caller.organizationId, caller.memberId) : null;
  const id = providers.newProviderId();
  const { clientSecret, ...rest } = input;
  try {
    return await providers.insertProvider(deps.db, environmentId, id, {
      ...rest,
      clientSecretSealed: clientSecret ? deps.sealer.seal(clientSecret, clientSecretAad(id)) : null,
      termsAcceptedByMemberId: input.termsUrl ? caller.memberId : null,
      termsAcceptedEmail: member?.email ?? null,
      termsAcceptedAt: input.termsUrl ? new Date() : null,
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505")
      throw conflict("provider_already_exists", `provider ${input.provider} is already configured for this environment`);
    throw err;
  }
}

export function listProviders(deps: Deps, environmentId: string) {
  return providers.listProviders(deps.db, environmentId);
}

export async function getProvider(deps: Deps, environmentId: string, providerId: string) {
  const p = await providers.findProvider(deps.db, environmentId, providerId);
  if (!p) throw notFound("provider");
  return p;
}

export async function setProviderEnabled(deps: Deps, environmentId: string, providerId: string, enabled: boolean) {
  const p = await providers.setProviderEnabled(deps.db, environmentId, providerId, enabled);
  if (!p) throw notFound("provider");
  return p;
}
