import { randomUUID } from "node:crypto";
import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/sso.js";
import { isLoopbackHost } from "../hosts.js";
import { audited } from "../audit/audit.js";
import { normalizeHostname } from "../custom-hostnames/hostname.js";
import type { Deps } from "../deps.js";
import type { OrganizationAccess } from "../tenancy/access.js";

/** Binds a sealed client secret to its provider row. */
export const ssoClientSecretAad = (id: string) => `sso_provider:${id}:client_secret`;

/** Where the identity provider returns members to; register it there. */
export const ssoRedirectUrl = (publicUrl: string, id: string) => `${publicUrl}/api/v0/sso/${id}/callback`;

export interface SsoProviderInput {
  protocol: "oidc" | "saml";
  issuer: string | null;
  entryPoint: string | null;
  clientId: string | null;
  /** null: keep the stored one (update) / none (create). */
  clientSecret: string | null;
  certificate: string | null;
  enforce: boolean;
  domains: string[];
}

const PEM_CERT = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/;

function httpsUrl(s: string, field: string) {
  // new URL() throws on an unparsable URL (e.g. one built from an ssoDomain with spaces or angle brackets):
  // that is the caller's mistake, not an internal error.
  const u = URL.canParse(s) ? new URL(s) : null;
  if (!u) throw badRequest("invalid_url", `${field} must be an https URL`, { field });
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopbackHost(u.hostname)))
    throw badRequest("invalid_url", `${field} must be an https URL`, { field });
}

/** Checks and normalizes the configuration; the secret to keep is the caller's business. */
function checkInput(input: SsoProviderInput, hasStoredSecret: boolean) {
  const domains = [...new Set(input.domains.map((d, i) => {
    const h = normalizeHostname(d, { minLabels: 2 });
    if (!h) throw badRequest("invalid_domain", `domains[${i}] must be a domain name such as example.com`, { field: `domains[${i}]` });
    return h;
  }))].sort();
  if (input.protocol === "oidc") {
    if (!input.issuer) throw badRequest("issuer_required", "issuer is required for oidc", { field: "issuer" });
    if (!input.clientId) throw badRequest("client_id_required", "clientId is required for oidc", { field: "clientId" });
    if (!input.clientSecret && !hasStoredSecret) throw badRequest("client_secret_required", "clientSecret is required for oidc", { field: "clientSecret" });
    if (input.entryPoint || input.certificate) throw badRequest("saml_fields_on_oidc", "entryPoint and certificate belong to saml providers");
    httpsUrl(input.issuer, "issuer");
  } else {
    if (!input.entryPoint) throw badRequest("entry_point_required", "entryPoint is required for saml", { field: "entryPoint" });
    if (!input.certificate) throw badRequest("certificate_required", "certificate (PEM) is required for saml", { field: "certificate" });
    if (!PEM_CERT.test(input.certificate.trim() + "\n")) throw badRequest("invalid_certificate", "certificate must be one PEM CERTIFICATE block", { field: "certificate" });
    if (input.issuer || input.clientId || input.clientSecret) throw badRequest("oidc_fields_on_saml", "issuer, clientId and clientSecret belong to oidc providers");
    httpsUrl(input.entryPoint, "entryPoint");
  }
  if (input.enforce && domains.length === 0)
    throw unprocessable("domains_required_for_enforce", "enforcing SSO needs at least one e-mail domain");
  return domains;
}

const snapshot = (p: repo.SsoProviderRecord) => ({
  id: p.id,
  protocol: p.protocol,
  issuer: p.issuer,
  entryPoint: p.entryPoint,
  clientId: p.clientId,
  clientSecretSet: p.clientSecretSealed !== null,
  enforce: p.enforce,
  domains: p.domains,
});

async function assertDomainsFree(t: Parameters<typeof repo.domainsClaimedElsewhere>[0], organizationId: string, domains: string[]) {
  const taken = await repo.domainsClaimedElsewhere(t, organizationId, domains);
  if (taken.length) throw conflict("sso_domain_already_claimed", `already routed to another organization's SSO provider: ${taken.join(", ")}`);
}

function translateUnique(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505" && e.constraint === "sso_provider_domains_domain_key")
    throw conflict("sso_domain_already_claimed", "a domain is already routed to another organization's SSO provider");
  if (e.code === "23505") throw conflict("sso_provider_already_exists", "this organization already has an SSO provider");
  throw err;
}

export async function getSsoProvider(deps: Deps, access: OrganizationAccess) {
  const p = await repo.findSsoProviderOfOrganization(deps.db, access.organizationId);
  if (!p) throw notFound("SSO provider");
  return p;
}

export async function createSsoProvider(deps: Deps, access: OrganizationAccess, input: SsoProviderInput) {
  const domains = checkInput(input, false);
  return audited(deps, access, async (t, record) => {
    if (await repo.findSsoProviderOfOrganization(t, access.organizationId))
      throw conflict("sso_provider_already_exists", "this organization already has an SSO provider");
    await assertDomainsFree(t, access.organizationId, domains);
    const id = randomUUID();
    let created: repo.SsoProviderRecord;
    try {
      created = await t.tx((sp) =>
        repo.insertSsoProvider(sp, access.organizationId, id, {
          protocol: input.protocol,
          issuer: input.issuer,
          entryPoint: input.entryPoint,
          clientId: input.clientId,
          clientSecretSealed: input.clientSecret ? deps.sealer.seal(input.clientSecret, ssoClientSecretAad(id)) : null,
          certificate: input.certificate?.trim() ?? null,
          enforce: input.enforce,
          domains,
        }),
      );
    } catch (err) {
      translateUnique(err);
    }
    await record({ action: "sso_provider.created", resourceType: "sso_provider", resourceId: id, after: snapshot(created), environmentId: null });
    return created;
  });
}

/** Replaces the configuration; a missing clientSecret keeps the stored one when the protocol stays oidc. */
export async function updateSsoProvider(deps: Deps, access: OrganizationAccess, id: string, input: SsoProviderInput) {
  return audited(deps, access, async (t, record) => {
    const current = await repo.findSsoProvider(t, access.organizationId, id, { forUpdate: true });
    if (!current) throw notFound("SSO provider");
    const keepSecret = input.protocol === "oidc" && current.protocol === "oidc" && current.clientSecretSealed !== null;
    const domains = checkInput(input, keepSecret);
    await assertDomainsFree(t, access.organizationId, domains);
    let updated: repo.SsoProviderRecord | null = null;
    try {
      updated = await t.tx((sp) =>
        repo.updateSsoProvider(sp, access.organizationId, id, {
          protocol: input.protocol,
          issuer: input.issuer,
          entryPoint: input.entryPoint,
          clientId: input.clientId,
          clientSecretSealed: input.clientSecret
            ? deps.sealer.seal(input.clientSecret, ssoClientSecretAad(id))
            : input.protocol === "oidc"
              ? current.clientSecretSealed
              : null,
          certificate: input.certificate?.trim() ?? null,
          enforce: input.enforce,
          domains,
        }),
      );
    } catch (err) {
      translateUnique(err);
    }
    if (!updated) throw notFound("SSO provider");
    await record({
      action: "sso_provider.updated",
      resourceType: "sso_provider",
      resourceId: id,
      before: snapshot(current),
      after: { ...snapshot(updated), clientSecretChanged: input.clientSecret !== null },
      environmentId: null,
    });
    return updated;
  });
}

export async function deleteSsoProvider(deps: Deps, access: OrganizationAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteSsoProvider(t, access.organizationId, id);
    if (!deleted) throw notFound("SSO provider");
    await record({ action: "sso_provider.deleted", resourceType: "sso_provider", resourceId: id, before: snapshot(deleted), environmentId: null });
  });
}
