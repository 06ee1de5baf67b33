import type { Queryable } from "../db.js";
import type { Page } from "./organizations.js";
import { toMember, type Member } from "./tenancy.js";

export async function listMembers(q: Queryable, organizationId: string, page: Page): Promise<{ members: Member[]; count: number }> {
  const rows = await q.any("SELECT * FROM members WHERE organization_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3", [
    organizationId,
    page.limit,
    page.offset,
  ]);
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM members WHERE organization_id = $1", [organizationId]);
  return { members: rows.map(toMember), count: n };
}

/** The member, locked for the rest of the transaction. */
export async function lockMember(q: Queryable, organizationId: string, memberId: string): Promise<Member | null> {
  const row = await q.oneOrNone("SELECT * FROM members WHERE organization_id = $1 AND id = $2 FOR UPDATE", [organizationId, memberId]);
  return row ? toMember(row) : null;
}

/**
 * Locks the organization's owner rows and counts them, so that two concurrent demotions or removals cannot
 * both see "another owner is left".
 */
export async function lockOwners(q: Queryable, organizationId: string): Promise<string[]> {
  const rows = await q.any<{ id: string }>("SELECT id FROM members WHERE organization_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE", [
    organizationId,
  ]);
  return rows.map((r) => r.id);
}

export async function setMemberRole(q: Queryable, organizationId: string, memberId: string, role: string): Promise<Member> {
  const row = await q.one("UPDATE members SET role = $3, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *", [
    organizationId,
    memberId,
    role,
  ]);
  return toMember(row);
}

export async function deleteMember(q: Queryable, organizationId: string, memberId: string): Promise<boolean> {
  return (await q.result("DELETE FROM members WHERE organization_id = $1 AND id = $2", [organizationId, memberId])).rowCount === 1;
}

export async function findMemberByAccount(q: Queryable, organizationId: string, accountId: string): Promise<Member | null> {
  const row = await q.oneOrNone("SELECT * FROM members WHERE organization_id = $1 AND account_id = $2", [organizationId, accountId]);
  return row ? toMember(row) : null;
}

/** The memberships of an account (for account-level audit rows). */
export async function accountMemberships(q: Queryable, accountId: string): Promise<Member[]> {
  const rows = await q.any("SELECT * FROM members WHERE account_id = $1 ORDER BY created_at, id", [accountId]);
  return rows.map(toMember);
}

/** Hashes of the environment tokens the member created in the organization (their principals carry its role). */
export async function tokenHashesCreatedBy(q: Queryable, organizationId: string, memberId: string): Promise<Buffer[]> {
  const rows = await q.any<{ token_hash: Buffer }>(
    "SELECT token_hash FROM api_tokens WHERE organization_id = $1 AND created_by_member_id = $2",
    [organizationId, memberId],
  );
  return rows.map((r) => r.token_hash);
}

/** Deactivates the environment tokens the member created in the organization; returns their hashes. */
export async function deactivateTokensCreatedBy(q: Queryable, organizationId: string, memberId: string): Promise<Buffer[]> {
  const rows = await q.any<{ token_hash: Buffer }>(
    `UPDATE api_tokens SET active = false
     WHERE organization_id = $1 AND created_by_member_id = $2 AND deleted_at IS NULL RETURNING token_hash`,
    [organizationId, memberId],
  );
  return rows.map((r) => r.token_hash);
}
