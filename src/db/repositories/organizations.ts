import type { Queryable } from "../db.js";

export interface OrganizationAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postalCode: string | null;
  country: string;
}

export interface OrganizationRecord {
  id: string;
  name: string;
  description: string | null;
  websiteUrl: string | null;
  address: OrganizationAddress | null;
  /** The role of the account the list was made for (only set by listAccountOrganizations). */
  role: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Page {
  offset: number;
  limit: number;
}

export async function findOrganization(q: Queryable, organizationId: string): Promise<OrganizationRecord | null> {
  const row = await q.oneOrNone("SELECT o.*, NULL AS role FROM organizations o WHERE o.id = $1", [organizationId]);
  return row ? toOrganization(row) : null;
}

/**
 * Locks the organization's row for the rest of the transaction; false when it is gone. "key share" is what
 * a change inside the organization takes (as its foreign keys would, only first); "update" is what deleting
 * it takes. A change that locks first never meets the organization deleted under it half-way.
 */
export async function lockOrganization(q: Queryable, organizationId: string, strength: "key share" | "update"): Promise<boolean> {
  const lock = strength === "update" ? "FOR UPDATE" : "FOR KEY SHARE";
  return (await q.oneOrNone(`SELECT 1 FROM organizations WHERE id = $1 ${lock}`, [organizationId])) !== null;
}

/** The organizations an account is a member of, with its role in each (oldest membership first). */
export async function listAccountOrganizations(q: Queryable, accountId: string, page: Page): Promise<{ organizations: OrganizationRecord[]; count: number }> {
  const rows = await q.any(
    `SELECT o.*, m.role FROM members m JOIN organizations o ON o.id = m.organization_id
     WHERE m.account_id = $1 ORDER BY m.created_at, o.id LIMIT $2 OFFSET $3`,
    [accountId, page.limit, page.offset],
  );
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM members WHERE account_id = $1", [accountId]);
  return { organizations: rows.map(toOrganization), count: n };
}

export async function updateOrganization(
  q: Queryable,
  organizationId: string,
  patch: { name?: string; description?: string | null; websiteUrl?: string | null },
): Promise<OrganizationRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE organizations SET
       name = CASE WHEN $2 THEN $3 ELSE name END,
       description = CASE WHEN $4 THEN $5 ELSE description END,
       website_url = CASE WHEN $6 THEN $7 ELSE website_url END,
       updated_at = now()
     WHERE id = $1 RETURNING *, NULL AS role`,
    [
      organizationId,
      patch.name !== undefined,
      patch.name ?? null,
      patch.description !== undefined,
      patch.description ?? null,
      patch.websiteUrl !== undefined,
      patch.websiteUrl ?? null,
    ],
  );
  return row ? toOrganization(row) : null;
}

export async function updateOrganizationAddress(q: Queryable, organizationId: string, a: OrganizationAddress): Promise<OrganizationRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE organizations SET address_line1 = $2, address_line2 = $3, address_city = $4, address_region = $5,
       address_postal_code = $6, address_country = $7, updated_at = now()
     WHERE id = $1 RETURNING *, NULL AS role`,
    [organizationId, a.line1, a.line2, a.city, a.region, a.postalCode, a.country],
  );
  return row ? toOrganization(row) : null;
}

/** Deletes the organization; everything it owns goes with it (ON DELETE CASCADE). */
export async function deleteOrganization(q: Queryable, organizationId: string): Promise<boolean> {
  return (await q.result("DELETE FROM organizations WHERE id = $1", [organizationId])).rowCount === 1;
}

/** Hashes of the environment tokens of an organization (to drop their cached principals). */
export async function organizationTokenHashes(q: Queryable, organizationId: string): Promise<Buffer[]> {
  const rows = await q.any<{ token_hash: Buffer }>("SELECT token_hash FROM api_tokens WHERE organization_id = $1", [organizationId]);
  return rows.map((r) => r.token_hash);
}

function toOrganization(r: Record<string, any>): OrganizationRecord {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    websiteUrl: r.website_url,
    // The country is required for an address (line1 and city are not: the published client sends neither).
    address: r.address_country
      ? {
          line1: r.address_line1,
          line2: r.address_line2,
          city: r.address_city,
          region: r.address_region,
          postalCode: r.address_postal_code,
          country: r.address_country,
        }
      : null,
    role: r.role ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
