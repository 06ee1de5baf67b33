import type { EphemeralStore } from "../../store/store.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { ProvenCredential } from "./credentials.js";

/**
 * A link that found the credential owned by another user: the proof (already checked) and that user, kept
 * for the session that made it, so the client may transfer or merge next without proving it again. One per
 * session, 10 minutes, consumed by the transfer or merge that uses it.
 */
export interface PendingMerge {
  credential: ProvenCredential;
  otherUserId: string;
}

const PENDING_TTL_SECONDS = 600;
const keyOf = (p: EndUserPrincipal) => `sign-in:pending-merge:${p.environmentId}:${p.sessionId}`;

export async function rememberPendingMerge(store: EphemeralStore, principal: EndUserPrincipal, pending: PendingMerge): Promise<void> {
  await store.set(keyOf(principal), JSON.stringify(pending), PENDING_TTL_SECONDS);
}

/** Takes (reads and deletes) the session's pending merge: two concurrent merges cannot both use it. */
export async function takePendingMerge(store: EphemeralStore, principal: EndUserPrincipal): Promise<PendingMerge | null> {
  const raw = await store.take(keyOf(principal));
  return raw ? (JSON.parse(raw) as PendingMerge) : null;
}
