import type { Queryable } from "../db.js";

export interface SsoProviderRecord {
  id: string;
  organizationId: string;
  protocol: "oidc" | "saml";
  issuer: string | null;
  entryPoint: string | null;
  clientId: string | null;
  /** Sealed (aad binds it to the row); opened only by the sign-in flow. */
  clientSecretSealed: string | null;
  certificate: string | null;
  enforce: boolean;
  domains: string[];
  createdAt: Date;
  updatedAt: Date;
}

export type SsoProviderFields = Omit<SsoProviderRecord, "id" | "organizationId" | "createdAt" | "updatedAt">;

const SELECT = `SELECT p.*, COALESCE((SELECT array_agg(d.domain ORDER BY d.domain) FROM sso_provider_domains d
  WHERE d.sso_provider_id = p.id), '{}') AS domains FROM sso_providers p`;

const toProvider = (r: Record<string, any>): SsoProviderRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  protocol: r.protocol,
  issuer: r.issuer,
  entryPoint: r.entry_point,
  clientId: r.client_id,
  clientSecretSealed: r.client_secret_sealed,
  certificate: r.certificate,
  enforce: r.enforce,
  domains: r.domains ?? [],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function findSsoProviderOfOrganization(q: Queryable, organizationId: string): Promise<SsoProviderRecord | null> {
  const row = await q.oneOrNone(`${SELECT} WHERE p.organization_id = $1`, [organizationId]);
  return row ? toProvider(row) : null;
}

export async function findSsoProvider(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  const row = await q.oneOrNone(`${SELECT} WHERE p.organization_id = $1 AND p.id = $2${opts.forUpdate ? " FOR UPDATE OF p" : ""}`, [
    organizationId,
    id,
  ]);
  return row ? toProvider(row) : null;
}

/** The organization's provider that claims exactly this (lowercase) domain, if any. */
export async function findSsoProviderForDomain(q: Queryable, organizationId: string, domain: string): Promise<SsoProviderRecord | null> {
  const row = await q.oneOrNone(
    `${SELECT} WHERE p.organization_id = $1 AND EXISTS (SELECT 1 FROM sso_provider_domains d WHERE d.sso_provider_id = p.id AND d.domain = $2)`,
    [organizationId, domain],
  );
  return row ? toProvider(row) : null;
}

/** Domains of `domains` already routed to another organization's provider. */
export async function domainsClaimedElsewhere(q: Queryable, organizationId: string, domains: string[]): Promise<string[]> {
  if (domains.length === 0) return [];
  return q.map("SELECT domain FROM sso_provider_domains WHERE domain = ANY($1::text[]) AND organization_id <> $2 ORDER BY domain", [domains, organizationId], (r) => r.domain);
}

export async function insertSsoProvider(q: Queryable, organizationId: string, id: string, f: SsoProviderFields): Promise<SsoProviderRecord> {
  await q.none(
    `INSERT INTO sso_providers (id, organization_id, protocol, issuer, entry_point, client_id, client_secret_sealed, certificate, enforce)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, organizationId, f.protocol, f.issuer, f.entryPoint, f.clientId, f.clientSecretSealed, f.certificate, f.enforce],
  );
  await replaceDomains(q, organizationId, id, f.domains);
  return (await findSsoProvider(q, organizationId, id))!;
}

export async function updateSsoProvider(q: Queryable, organizationId: string, id: string, f: SsoProviderFields): Promise<SsoProviderRecord | null> {
  const n = await q.result(
    `UPDATE sso_providers SET protocol = $3, issuer = $4, entry_point = $5, client_id = $6, client_secret_sealed = $7, certificate = $8,
       enforce = $9, updated_at = now() WHERE organization_id = $1 AND id = $2`,
    [organizationId, id, f.protocol, f.issuer, f.entryPoint, f.clientId, f.clientSecretSealed, f.certificate, f.enforce],
  );
  if (n.rowCount === 0) return null;
  await replaceDomains(q, organizationId, id, f.domains);
  return findSsoProvider(q, organizationId, id);
}

async function replaceDomains(q: Queryable, organizationId: string, id: string, domains: string[]) {
  await q.none("DELETE FROM sso_provider_domains WHERE organization_id = $1 AND sso_provider_id = $2", [organizationId, id]);
  for (const d of domains)
    await q.none("INSERT INTO sso_provider_domains (organization_id, sso_provider_id, domain) VALUES ($1, $2, $3)", [organizationId, id, d]);
}

export async function deleteSsoProvider(q: Queryable, organizationId: string, id: string): Promise<SsoProviderRecord | null> {
  const existing = await findSsoProvider(q, organizationId, id);
  if (!existing) return null;
  await q.none("DELETE FROM sso_providers WHERE organization_id = $1 AND id = $2", [organizationId, id]);
  return existing;
}
