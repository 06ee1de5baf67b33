import { randomUUID } from "node:crypto";
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import { DomainError } from "../../../errors.js";
import type { Deps } from "../../deps.js";
import { spendOnce } from "../../spent-credentials/service.js";
import { issuerOf } from "../../sessions/tokens.js";
import type { WaasCaller } from "./device-caller.js";

/**
 * Backup tokens (getBackupToken): a one-minute JWT that authorises ONE backup upload by its user in its
 * environment; the cloud-drive backup requires one (backupKeySharesToCloudDrive). It is signed with the
 * environment's session signing key, but it is not a session: its typ is `sigil-backup+jwt`, its audience
 * `sigil:waas-backup`, and it has no `sid`, which the session verifier requires, so it cannot stand for a
 * session, and a session token (no such audience) cannot stand for it. Spent on first use (its jti in
 * Postgres, src/domain/spent-credentials): a replay is refused, even after a restart or a store that forgot,
 * and of two concurrent uses exactly one wins.
 */

export const BACKUP_TOKEN_TTL_SECONDS = 60;
const TYP = "sigil-backup+jwt";
const AUDIENCE = "sigil:waas-backup";

const refused = (message: string) => new DomainError("unauthenticated", "invalid_backup_token", message);

export async function issueBackupToken(deps: Pick<Deps, "sessionKeys">, caller: WaasCaller): Promise<string> {
  const { environmentId, userId } = caller.principal;
  const key = await deps.sessionKeys.signingKey(environmentId);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ environment_id: environmentId, scope: "waas:backup" })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: TYP })
    .setIssuer(issuerOf(environmentId))
    .setAudience(AUDIENCE)
    .setSubject(userId)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + BACKUP_TOKEN_TTL_SECONDS)
    .sign(key.key);
}

/** Verifies the token is the caller's, of this environment, unexpired and unspent, and spends it. */
export async function spendBackupToken(deps: Pick<Deps, "sessionKeys" | "db">, caller: WaasCaller, token: string): Promise<void> {
  const { environmentId, userId } = caller.principal;
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw refused("the backup token is malformed");
  }
  const key = kid ? await deps.sessionKeys.verifyingKey(environmentId, kid) : undefined;
  if (!key) throw refused("the backup token is not signed by a key of this environment");
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key.key, {
      algorithms: [key.alg],
      issuer: issuerOf(environmentId),
      audience: AUDIENCE,
      typ: TYP,
      requiredClaims: ["sub", "exp", "jti"],
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw refused("the backup token has expired");
    throw refused("the backup token is invalid");
  }
  if (payload.sub !== userId || payload.environment_id !== environmentId) throw refused("the backup token is another user's");
  // Spent in Postgres, not the store: a restart or a Redis that forgets must not let it upload again.
  if (!(await spendOnce(deps.db, environmentId, "waas_backup_token", payload.jti!, payload.exp!))) throw refused("the backup token was already used");
}
