import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";
import type { Page } from "./organizations.js";

export interface InviteRecord {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string | null;
  alias: string | null;
  walletPublicKey: string | null;
  phoneNumber: string | null;
  role: string;
  /** pending invites past their expiry read as expired. */
  status: "pending" | "accepted" | "rejected" | "revoked" | "expired";
  createdByEmail: string | null;
  createdByMemberId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

const SELECT_INVITE = `
  SELECT i.*, o.name AS organization_name, m.email AS created_by_email,
         CASE WHEN i.status = 'pending' AND i.expires_at < now() THEN 'expired' ELSE i.status END AS effective_status
  FROM invites i JOIN organizations o ON o.id = i.organization_id LEFT JOIN members m ON m.id = i.created_by_member_id`;

export async function insertInvite(
  q: Queryable,
  organizationId: string,
  i: { email?: string; alias?: string; walletPublicKey?: string; phoneNumber?: string; role: string; createdByMemberId: string | null; ttlDays: number },
): Promise<InviteRecord> {
  const id = randomUUID();
  await q.none(
    `INSERT INTO invites (id, organization_id, email, alias, wallet_public_key, phone_number, role, created_by_member_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(days => $9))`,
    [id, organizationId, i.email ?? null, i.alias ?? null, i.walletPublicKey ?? null, i.phoneNumber ?? null, i.role, i.createdByMemberId, i.ttlDays],
  );
  return (await findInvite(q, organizationId, id))!;
}

export async function findInvite(q: Queryable, organizationId: string, inviteId: string): Promise<InviteRecord | null> {
  const row = await q.oneOrNone(`${SELECT_INVITE} WHERE i.organization_id = $1 AND i.id = $2`, [organizationId, inviteId]);
  return row ? toInvite(row) : null;
}

export async function listInvites(q: Queryable, organizationId: string): Promise<InviteRecord[]> {
  const rows = await q.any(`${SELECT_INVITE} WHERE i.organization_id = $1 ORDER BY i.created_at DESC, i.id`, [organizationId]);
  return rows.map(toInvite);
}

export async function listInvitesPage(q: Queryable, organizationId: string, page: Page): Promise<{ invites: InviteRecord[]; count: number }> {
  const rows = await q.any(`${SELECT_INVITE} WHERE i.organization_id = $1 ORDER BY i.created_at DESC, i.id LIMIT $2 OFFSET $3`, [
    organizationId,
    page.limit,
    page.offset,
  ]);
  const { n } = await q.one<{ n: number }>("SELECT count(*)::int AS n FROM invites WHERE organization_id = $1", [organizationId]);
  return { invites: rows.map(toInvite), count: n };
}

/**
 * The invitee's side: pending, unexpired invites addressed to an e-mail (the account's), from every
 * organization. The e-mail is the scope here: the invitee is not a member yet.
 */
export async function listInvitesForEmail(q: Queryable, email: string, page: Page): Promise<{ invites: InviteRecord[]; count: number }> {
  const where = "lower(i.email) = lower($1) AND i.status = 'pending' AND i.expires_at >= now()";
  const rows = await q.any(`${SELECT_INVITE} WHERE ${where} ORDER BY i.created_at DESC, i.id LIMIT $2 OFFSET $3`, [email, page.limit, page.offset]);
  const { n } = await q.one<{ n: number }>(`SELECT count(*)::int AS n FROM invites i WHERE ${where}`, [email]);
  return { invites: rows.map(toInvite), count: n };
}

/** An invite addressed to this e-mail, locked for the rest of the transaction (null when none). */
export async function lockInviteForEmail(q: Queryable, inviteId: string, email: string): Promise<InviteRecord | null> {
  const row = await q.oneOrNone(`${SELECT_INVITE} WHERE i.id = $1 AND lower(i.email) = lower($2) FOR UPDATE OF i`, [inviteId, email]);
  return row ? toInvite(row) : null;
}

/** An invite of the organization, locked for the rest of the transaction. */
export async function lockInvite(q: Queryable, organizationId: string, inviteId: string): Promise<InviteRecord | null> {
  const row = await q.oneOrNone(`${SELECT_INVITE} WHERE i.organization_id = $1 AND i.id = $2 FOR UPDATE OF i`, [organizationId, inviteId]);
  return row ? toInvite(row) : null;
}

export async function setInviteStatus(q: Queryable, organizationId: string, inviteId: string, status: InviteRecord["status"]): Promise<InviteRecord> {
  await q.none("UPDATE invites SET status = $3, updated_at = now() WHERE organization_id = $1 AND id = $2", [organizationId, inviteId, status]);
  return (await findInvite(q, organizationId, inviteId))!;
}

/** Marks pending invites to this e-mail that are past their expiry as expired, so a new one can be sent. */
export async function expireStaleInvites(q: Queryable, organizationId: string): Promise<void> {
  await q.none(
    "UPDATE invites SET status = 'expired', updated_at = now() WHERE organization_id = $1 AND status = 'pending' AND expires_at < now()",
    [organizationId],
  );
}

export async function pendingInviteExists(q: Queryable, organizationId: string, email: string): Promise<boolean> {
  return (
    (await q.oneOrNone(
      "SELECT 1 FROM invites WHERE organization_id = $1 AND lower(email) = lower($2) AND status = 'pending' AND expires_at >= now()",
      [organizationId, email],
    )) !== null
  );
}

function toInvite(r: Record<string, any>): InviteRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    organizationName: r.organization_name,
    email: r.email,
    alias: r.alias,
    walletPublicKey: r.wallet_public_key,
    phoneNumber: r.phone_number,
    role: r.role,
    status: r.effective_status,
    createdByEmail: r.created_by_email,
    createdByMemberId: r.created_by_member_id,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
  };
}
