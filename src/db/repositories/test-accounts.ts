import type { Queryable } from "../db.js";

export interface TestAccountRecord {
  id: string;
  environmentId: string;
  email: string | null;
  phoneNumber: string | null;
  /** The fixed one-time code, sealed (aad binds it to the row). */
  otpCodeSealed: string;
  createdByMemberId: string | null;
  createdAt: Date;
}

const toAccount = (r: Record<string, any>): TestAccountRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  email: r.email,
  phoneNumber: r.phone_number,
  otpCodeSealed: r.otp_code_sealed,
  createdByMemberId: r.created_by_member_id,
  createdAt: r.created_at,
});

export async function findTestAccount(q: Queryable, environmentId: string): Promise<TestAccountRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM test_accounts WHERE environment_id = $1", [environmentId]);
  return row ? toAccount(row) : null;
}

export async function insertTestAccount(
  q: Queryable,
  environmentId: string,
  a: { id: string; email: string | null; phoneNumber: string | null; otpCodeSealed: string; createdByMemberId: string | null },
): Promise<TestAccountRecord> {
  return toAccount(
    await q.one(
      `INSERT INTO test_accounts (id, environment_id, email, phone_number, otp_code_sealed, created_by_member_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [a.id, environmentId, a.email, a.phoneNumber, a.otpCodeSealed, a.createdByMemberId],
    ),
  );
}

export async function deleteTestAccount(q: Queryable, environmentId: string): Promise<TestAccountRecord | null> {
  const row = await q.oneOrNone("DELETE FROM test_accounts WHERE environment_id = $1 RETURNING *", [environmentId]);
  return row ? toAccount(row) : null;
}

/** Whether a real (not deleted) user of the environment already holds this e-mail or phone number. */
export async function identifierBelongsToUser(q: Queryable, environmentId: string, id: { email: string | null; phoneNumber: string | null }) {
  const row = await q.oneOrNone(
    `SELECT 1 FROM users WHERE environment_id = $1 AND deleted_at IS NULL
       AND (($2::text IS NOT NULL AND lower(email) = lower($2)) OR ($3::text IS NOT NULL AND phone_number = $3)) LIMIT 1`,
    [environmentId, id.email, id.phoneNumber],
  );
  return row !== null;
}
