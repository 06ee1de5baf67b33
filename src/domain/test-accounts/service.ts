import { randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/test-accounts.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { canonicalEmail, normaliseEmail } from "../verifications/email.js";

/** Binds a sealed code to its row: a sealed value copied to another row does not open there. */
export const otpCodeAad = (id: string) => `test_account:${id}:otp_code`;

/** Six digits, like the codes real users receive, so the reviewer's flow is the ordinary one. */
export function generateOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

const snapshot = (a: repo.TestAccountRecord) => ({ id: a.id, email: a.email, phoneNumber: a.phoneNumber });

/**
 * The account and its code: settings readers hand both to the app-store reviewer, and the code only
 * signs in as this account, which holds no real user's data.
 */
export async function getTestAccount(deps: Deps, access: EnvironmentAccess) {
  const a = await repo.findTestAccount(deps.db, access.environmentId);
  if (!a) throw notFound("test account");
  return { account: a, otpCode: deps.sealer.open(a.otpCodeSealed, otpCodeAad(a.id)) };
}

/** A reviewer address under example.com (reserved by RFC 2606, so never a real user's). */
export const generatedTestAccountEmail = () => `app-review-${randomBytes(6).toString("hex")}@example.com`;

/**
 * Creates the environment's test account (one per environment, live included: app-store review runs
 * against the production app). Its identifier must not be a real user's, or the fixed code would sign
 * anyone in as that user. Returns the account and its code, which is not shown again.
 */
export async function createTestAccount(deps: Deps, access: EnvironmentAccess, input: { email: string | null; phoneNumber: string | null }) {
  if (input.email !== null && input.phoneNumber !== null)
    throw badRequest("email_or_phone_number_required", "give at most one of email and phoneNumber");
  const email = (input.email !== null ? normaliseEmail(input.email) : null) ?? (input.phoneNumber === null ? generatedTestAccountEmail() : null);
  const code = generateOtpCode();
  const created = await audited(deps, access, async (t, record) => {
    if (await repo.findTestAccount(t, access.environmentId))
      throw conflict("test_account_already_exists", "this environment already has a test account; delete it first");
    if (await repo.identifierBelongsToUser(t, access.environmentId, { email, phoneNumber: input.phoneNumber }))
      throw unprocessable("identifier_belongs_to_user", "a user of this environment already signs in with this identifier");
    const id = randomUUID();
    let a: repo.TestAccountRecord;
    try {
      a = await t.tx((sp) =>
        repo.insertTestAccount(sp, access.environmentId, {
          id,
          email,
          phoneNumber: input.phoneNumber,
          otpCodeSealed: deps.sealer.seal(code, otpCodeAad(id)),
          createdByMemberId: access.actor.memberId,
        }),
      );
    } catch (err) {
      if ((err as { code?: string }).code === "23505") throw conflict("test_account_already_exists", "this environment already has a test account");
      throw err;
    }
    await record({ action: "test_account.created", resourceType: "test_account", resourceId: a.id, after: snapshot(a) });
    return a;
  });
  return { account: created, otpCode: code };
}

export async function deleteTestAccount(deps: Deps, access: EnvironmentAccess) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteTestAccount(t, access.environmentId);
    if (!deleted) throw notFound("test account");
    await record({ action: "test_account.deleted", resourceType: "test_account", resourceId: deleted.id, before: snapshot(deleted) });
  });
}

/**
 * For the SDK sign-in flows: true when `identifier` (e-mail or phone number) is the environment's test
 * account and `code` its fixed code. Those flows skip sending a message for it.
 */
export async function verifyTestAccountCode(deps: Pick<Deps, "db" | "sealer">, environmentId: string, identifier: string, code: string) {
  const a = await repo.findTestAccount(deps.db, environmentId);
  if (!a) return false;
  const matches = (a.email !== null && a.email === canonicalEmail(identifier)) || (a.phoneNumber !== null && a.phoneNumber === identifier);
  if (!matches) return false;
  const expected = Buffer.from(deps.sealer.open(a.otpCodeSealed, otpCodeAad(a.id)));
  const given = Buffer.from(code);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
