import { generateApiToken } from "../../crypto/api-token.js";
import type { Database } from "../../db/db.js";
import { findOrCreateAccount, insertEnvironment, insertMember, insertOrganization, insertProject } from "../../db/repositories/tenancy.js";
import { insertAccountToken, insertToken } from "../../db/repositories/tokens.js";
import { MANAGEMENT_PERMISSIONS } from "../auth/permissions.js";

export interface BootstrapResult {
  organizationId: string;
  projectId: string;
  /** The sandbox environment, which the token is bound to. */
  environmentId: string;
  liveEnvironmentId: string;
  memberId: string;
  tokenId: string;
  token: string;
  accountId: string;
  /** A member (account) token of the owner: acts in every organization the owner's account belongs to. */
  memberToken: string;
}

/**
 * Creates a new, separate tenant in one transaction: an organization, a project with its live and sandbox
 * environments, an owner member (of the account with that e-mail, created if new), a first API token (all
 * permissions) bound to the sandbox environment and a member token of the owner's account.
 */
export async function bootstrapTenant(
  db: Database,
  opts: { organizationName?: string; projectName?: string; ownerEmail?: string } = {},
): Promise<BootstrapResult> {
  return db.tx(async (t) => {
    const org = await insertOrganization(t, opts.organizationName ?? "My organization");
    const project = await insertProject(t, org.id, opts.projectName ?? "My project");
    const sandbox = await insertEnvironment(t, org.id, project.id, "sandbox");
    const live = await insertEnvironment(t, org.id, project.id, "live");
    const account = await findOrCreateAccount(t, { email: opts.ownerEmail ?? "owner@example.com", alias: "owner" });
    const owner = await insertMember(t, org.id, account, "owner");
    const { raw, hash, checksum } = generateApiToken();
    const token = await insertToken(t, sandbox.id, {
      organizationId: org.id,
      tokenHash: hash,
      checksum,
      note: "bootstrap",
      createdByMemberId: owner.id,
      permissions: [...MANAGEMENT_PERMISSIONS],
    });
    const member = generateApiToken();
    await insertAccountToken(t, account.id, {
      tokenHash: member.hash,
      checksum: member.checksum,
      note: "bootstrap (member)",
      createdByMemberId: owner.id,
      permissions: [...MANAGEMENT_PERMISSIONS],
    });
    return {
      accountId: account.id,
      memberToken: member.raw,
      organizationId: org.id,
      projectId: project.id,
      environmentId: sandbox.id,
      liveEnvironmentId: live.id,
      memberId: owner.id,
      tokenId: token.id,
      token: raw,
    };
  });
}
