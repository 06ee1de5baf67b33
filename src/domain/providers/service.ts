import { badRequest, conflict, notFound } from "../../errors.js";
import * as providers from "../../db/repositories/providers.js";
import type { Queryable } from "../../db/db.js";
import { findMember } from "../../db/repositories/tenancy.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { findPreset } from "./presets.js";
import { checkVendorConfiguration } from "./vendor-kinds.js";

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

/** What the audit trail keeps of a provider: everything but the sealed secret (only whether one is set). */
export function providerAuditView(p: providers.ProviderRecord) {
  const { clientSecretSealed, ...rest } = p;
  return { ...rest, clientSecretSet: clientSecretSealed !== null };
}

const alreadyExists = (kind: string) => conflict("provider_already_exists", `provider ${kind} is already configured for this environment`);

/** Generic issuers are only usable with a client id and an authorization endpoint (or, for oidc, an issuer). */
function checkIssuerConfiguration(p: { provider: string; clientId: string | null; authorizationUrl: string | null; issuer?: string | null }) {
  if (p.provider !== "oidc" && p.provider !== "oauth2") return;
  if (!p.clientId) throw badRequest("client_id_required", `clientId is required for provider ${p.provider}`);
  if (!p.authorizationUrl && !(p.provider === "oidc" && p.issuer))
    throw badRequest(
      "authorization_url_required",
      p.provider === "oidc"
        ? "authorizationUrl, issuer or preset is required for provider oidc"
        : "authorizationUrl or preset is required for provider oauth2",
    );
}

/** Fills the endpoints and scopes the request left empty from the named preset. */
function applyPreset(input: CreateProviderInput): CreateProviderInput {
  if (!input.preset) return input;
  const preset = findPreset(input.preset);
  if (!preset) throw badRequest("unknown_preset", `there is no provider preset ${input.preset}`, { field: "preset" });
  if (preset.provider !== input.provider)
    throw badRequest("preset_provider_mismatch", `preset ${preset.key} configures provider ${preset.provider}, not ${input.provider}`, {
      field: "preset",
    });
  return {
    ...input,
    issuer: input.issuer ?? (preset.issuer || null),
    authorizationUrl: input.authorizationUrl ?? preset.authorizationUrl,
    tokenUrl: input.tokenUrl ?? (preset.tokenUrl || null),
    userinfoUrl: input.userinfoUrl ?? (preset.userinfoUrl || null),
    scopes: input.scopes ?? (preset.scopes || null),
  };
}

/**
 * Configures a provider for the environment, enabled at once. The client secret is sealed at rest; when
 * terms were shown, their acceptance is recorded against the caller's member.
 */
export async function createProvider(deps: Deps, access: EnvironmentAccess, given: CreateProviderInput) {
  const input = applyPreset(given);
  checkIssuerConfiguration(input);
  checkVendorConfiguration({ ...input, secretSet: !!input.clientSecret }, access.environmentName, deps.config.webhooks);
  const environmentId = access.environmentId;
  if (await providers.providerKindExists(deps.db, environmentId, input.provider)) throw alreadyExists(input.provider);
  const memberId = access.actor.memberId;
  const member = input.termsUrl && memberId ? await findMember(deps.db, access.organizationId, memberId) : null;
  const id = providers.newProviderId();
  const { clientSecret, ...rest } = input;
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await providers.insertProvider(t, environmentId, id, {
        ...rest,
        clientSecretSealed: clientSecret ? deps.sealer.seal(clientSecret, clientSecretAad(id)) : null,
        termsAcceptedByMemberId: input.termsUrl ? memberId : null,
        termsAcceptedEmail: member?.email ?? null,
        termsAcceptedAt: input.termsUrl ? new Date() : null,
      });
      await record({ action: "provider.created", resourceType: "provider", resourceId: id, after: providerAuditView(created) });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw alreadyExists(input.provider);
    throw err;
  }
}

export function listProviders(deps: Deps, access: EnvironmentAccess) {
  return providers.listProviders(deps.db, access.environmentId);
}

export async function getProvider(deps: Deps, access: EnvironmentAccess, providerId: string) {
  const p = await providers.findProvider(deps.db, access.environmentId, providerId);
  if (!p) throw notFound("provider");
  return p;
}

async function lockedProvider(t: Queryable, environmentId: string, providerId: string) {
  const p = await t.oneOrNone("SELECT id FROM providers WHERE environment_id = $1 AND id = $2 FOR UPDATE", [environmentId, providerId]);
  if (!p) throw notFound("provider");
  const found = await providers.findProvider(t, environmentId, providerId);
  if (!found) throw notFound("provider");
  return found;
}

export async function setProviderEnabled(deps: Deps, access: EnvironmentAccess, providerId: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await lockedProvider(t, access.environmentId, providerId);
    const after = await providers.setProviderEnabled(t, access.environmentId, providerId, enabled);
    if (!after) throw notFound("provider");
    await record({
      action: enabled ? "provider.enabled" : "provider.disabled",
      resourceType: "provider",
      resourceId: providerId,
      before: { enabledAt: before.enabledAt },
      after: { enabledAt: after.enabledAt },
    });
    return after;
  });
}

/** Fields of an update: undefined keeps the value, null (or "" from the API) clears it. */
export interface UpdateProviderInput {
  clientId?: string | null;
  clientSecret?: string | null;
  authorizationUrl?: string | null;
  baseAuthUrl?: string | null;
  scopes?: string | null;
  defaultChainId?: number | null;
  defaultChain?: string | null;
  keyExportUrl?: string | null;
  issuer?: string | null;
  tokenUrl?: string | null;
  userinfoUrl?: string | null;
  /** Kind-specific settings to merge: null removes the key. */
  settings: Record<string, unknown>;
}

export async function updateProvider(deps: Deps, access: EnvironmentAccess, providerId: string, input: UpdateProviderInput) {
  return audited(deps, access, async (t, record) => {
    const before = await lockedProvider(t, access.environmentId, providerId);
    const { clientSecret, settings: settingChanges, ...columns } = input;
    const settings: Record<string, unknown> = { ...before.settings };
    for (const [k, v] of Object.entries(settingChanges)) {
      if (v === null) delete settings[k];
      else settings[k] = v;
    }
    const changes: providers.ProviderChanges = { ...columns, settings };
    if (clientSecret !== undefined) changes.clientSecretSealed = clientSecret ? deps.sealer.seal(clientSecret, clientSecretAad(providerId)) : null;
    const after = await providers.updateProvider(t, access.environmentId, providerId, changes);
    if (!after) throw notFound("provider");
    // Thrown inside the transaction: an update that leaves the provider unusable changes nothing.
    checkIssuerConfiguration(after);
    checkVendorConfiguration({ ...after, secretSet: after.clientSecretSealed !== null }, access.environmentName, deps.config.webhooks);
    await record({
      action: "provider.updated",
      resourceType: "provider",
      resourceId: providerId,
      before: providerAuditView(before),
      after: providerAuditView(after),
    });
    return after;
  });
}

export async function deleteProvider(deps: Deps, access: EnvironmentAccess, providerId: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await providers.deleteProvider(t, access.environmentId, providerId);
    if (!deleted) throw notFound("provider");
    await record({ action: "provider.deleted", resourceType: "provider", resourceId: providerId, before: providerAuditView(deleted) });
  });
}
