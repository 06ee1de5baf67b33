import { conflict, notFound, unprocessable, badRequest } from "../../errors.js";
import * as repo from "../../db/repositories/name-services.js";
import { randomUUID as newId } from "node:crypto";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import {
  CHALLENGE_GRACE_SECONDS,
  CHALLENGE_TTL_SECONDS,
  canonicalOwnerAddress,
  challengeKey,
  challengeMessage,
  latestChallengeKey,
  isValidSignature,
  newNonce,
  nonceOf,
  normalizeDomain,
  type PendingChallenge,
} from "./challenge.js";

/** What the audit trail records of a name service (the proof itself stays in the row). */
const snapshot = (n: repo.NameServiceRecord) => ({
  id: n.id,
  chainName: n.chainName,
  domain: n.domain,
  ownerAddress: n.ownerAddress,
  enabledAt: n.enabledAt,
});

/** Issues a challenge for (environment, chain, domain, owner) and keeps it for 10 minutes, single-use. */
export async function issueSigningMessage(
  deps: Pick<Deps, "store" | "config">,
  access: EnvironmentAccess,
  chainName: string,
  input: { domain: string; address: string },
) {
  const domain = normalizeDomain(input.domain);
  const address = canonicalOwnerAddress(chainName, input.address);
  const nonce = newNonce();
  const issuedAt = new Date();
  const expiresAt = new Date(issuedAt.getTime() + CHALLENGE_TTL_SECONDS * 1000);
  const message = challengeMessage({
    host: new URL(deps.config.publicUrl).host,
    publicUrl: deps.config.publicUrl,
    environmentId: access.environmentId,
    chainName,
    domain,
    address,
    nonce,
    issuedAt,
    expiresAt,
  });
  const pending: PendingChallenge = {
    environmentId: access.environmentId,
    chainName,
    domain,
    address,
    message,
    nonce,
    expiresAt: expiresAt.toISOString(),
  };
  const ttl = CHALLENGE_TTL_SECONDS + CHALLENGE_GRACE_SECONDS;
  await deps.store.set(challengeKey(access.environmentId, chainName, nonce), JSON.stringify(pending), ttl);
  await deps.store.set(latestChallengeKey(access.environmentId, chainName, domain, address), nonce, ttl);
  return { message, nonce, expiresAt };
}

/**
 * Links the domain once its owner's signature of the issued challenge checks out. The challenge is taken
 * (read and deleted atomically) before anything is verified, so each one answers at most one attempt.
 */
export async function createNameService(
  deps: Pick<Deps, "db" | "store">,
  access: EnvironmentAccess,
  chainName: string,
  input: { domain: string; address: string; signature: string; message: string; nonce: string },
) {
  const domain = normalizeDomain(input.domain);
  const address = canonicalOwnerAddress(chainName, input.address);
  // Checked here rather than in the proto so that a call on another tenant's environment answers 404 first.
  if (!/^0x[0-9a-fA-F]+$/.test(input.signature))
    throw badRequest("invalid_signature_format", "signature must be 0x-prefixed hex", { field: "signature" });
  // Without the message or its nonce (the published client sends neither), the newest challenge issued
  // for this domain and owner is the one signed.
  const nonce =
    input.nonce ||
    (input.message ? nonceOf(input.message) : await deps.store.get(latestChallengeKey(access.environmentId, chainName, domain, address)));
  if (!nonce)
    throw unprocessable("unknown_challenge", "no pending signing message for this domain and address: fetch one first (each is single-use)");
  if (await repo.findNameService(deps.db, access.environmentId, chainName)) throw alreadyExists(chainName);

  const raw = await deps.store.take(challengeKey(access.environmentId, chainName, nonce));
  if (!raw) throw unprocessable("unknown_challenge", "no pending signing message with this nonce: fetch a new one (each is single-use)");
  const challenge = JSON.parse(raw) as PendingChallenge;
  if (Date.parse(challenge.expiresAt) <= Date.now())
    throw unprocessable("challenge_expired", "the signing message has expired: fetch a new one");
  if (challenge.domain !== domain || challenge.address !== address)
    throw unprocessable("challenge_mismatch", "the domain or address differs from the ones the signing message was issued for");
  if (input.message && input.message !== challenge.message)
    throw unprocessable("invalid_signature", "the signed message is not the one that was issued");
  if (!(await isValidSignature(chainName, address, challenge.message, input.signature)))
    throw unprocessable("invalid_signature", `the signature is not ${address}'s signature of the issued message`);

  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertNameService(t, access.environmentId, {
        id: newId(),
        chainName,
        domain,
        ownerAddress: address,
        signedMessage: challenge.message,
        signature: input.signature,
      });
      await record({ action: "name_service.created", resourceType: "name_service", resourceId: created.id, after: snapshot(created) });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw alreadyExists(chainName);
    throw err;
  }
}

export async function getNameService(deps: Pick<Deps, "db">, access: EnvironmentAccess, chainName: string) {
  const n = await repo.findNameService(deps.db, access.environmentId, chainName);
  if (!n) throw notFound("name service");
  return n;
}

export async function setNameServiceEnabled(deps: Pick<Deps, "db">, access: EnvironmentAccess, chainName: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findNameService(t, access.environmentId, chainName);
    const after = before && (await repo.setNameServiceEnabled(t, access.environmentId, chainName, enabled));
    if (!before || !after) throw notFound("name service");
    await record({
      action: enabled ? "name_service.enabled" : "name_service.disabled",
      resourceType: "name_service",
      resourceId: after.id,
      before: snapshot(before),
      after: snapshot(after),
    });
    return after;
  });
}

export async function deleteNameService(deps: Pick<Deps, "db">, access: EnvironmentAccess, chainName: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteNameService(t, access.environmentId, chainName);
    if (!deleted) throw notFound("name service");
    await record({ action: "name_service.deleted", resourceType: "name_service", resourceId: deleted.id, before: snapshot(deleted) });
  });
}

const alreadyExists = (chainName: string) =>
  conflict("name_service_already_exists", `a name service for ${chainName} is already configured for this environment`);
