import { generateApiToken } from "../../crypto/api-token.js";
import { notFound } from "../../errors.js";
import * as tokens from "../../db/repositories/tokens.js";
import type { ApiTokenPrincipal } from "../../rpc/context.js";
import { tokenCacheKey } from "../auth/api-token-auth.js";
import { MANAGEMENT_PERMISSIONS } from "../auth/permissions.js";
import type { Deps } from "../deps.js";

/**
 * Creates a token bound to the environment, on behalf of the caller's member, with the caller's
 * permissions (a token never mints a stronger one). The raw token is returned here only.
 */
export async function createToken(deps: Deps, caller: ApiTokenPrincipal, environmentId: string, note: string) {
  const { raw, hash, checksum } = generateApiToken();
  const permissions = MANAGEMENT_PERMISSIONS.filter((p) => caller.permissions.includes(p));
  const record = await tokens.insertToken(deps.db, environmentId, {
    organizationId: caller.organizationId,
    tokenHash: hash,
    checksum,
    note,
    createdByMemberId: caller.memberId,
    permissions,
  });
  return { record, rawToken: raw };
}

export function listTokens(deps: Deps, environmentId: string) {
  return tokens.listTokens(deps.db, environmentId);
}

/** Deletes a token and drops its cached principal, so it stops working at once on every replica. */
export async function deleteToken(deps: Deps, environmentId: string, tokenId: string): Promise<void> {
  const hash = await tokens.deleteToken(deps.db, environmentId, tokenId);
  if (!hash) throw notFound("token");
  await deps.store.del(tokenCacheKey(hash));
}
