import { badRequest, unprocessable } from "../../errors.js";
import { isIpv4 } from "../custom-hostnames/hostname.js";
import type { Deps } from "../deps.js";
import { normalizeOrigin } from "../origins/origin.js";
import { isOriginAllowed } from "../origins/service.js";

/** Where a WebAuthn ceremony runs: the page's origin and the relying party id the credential is scoped to. */
export interface RelyingParty {
  origin: string;
  rpId: string;
}

/**
 * The relying party of a ceremony, from the request's Origin header: it must be one of the environment's
 * origins (a page elsewhere must not get or use this environment's passkeys), and the RP id is its host,
 * or a parent domain of it when the client names one (relatedOriginRpId), as WebAuthn allows an RP id to
 * be a registrable suffix of the origin's host. No Origin or an unknown one: refused before any challenge.
 */
export async function relyingPartyOf(deps: Pick<Deps, "db">, environmentId: string, originHeader: string | null, requestedRpId?: string): Promise<RelyingParty> {
  if (!originHeader) throw badRequest("origin_required", "passkey operations run from a page of one of the environment's origins: the Origin header is required");
  const parsed = normalizeOrigin(originHeader);
  if (!parsed.ok || parsed.origin.includes("*") || !(await isOriginAllowed(deps, environmentId, parsed.origin)))
    throw unprocessable("origin_not_allowed", "the request's Origin is not an origin of this environment");
  const host = new URL(parsed.origin).hostname;
  if (!requestedRpId) return { origin: parsed.origin, rpId: host };
  const rpId = requestedRpId.toLowerCase();
  const suffix = rpId === host || (!isIpv4(host) && rpId.includes(".") && host.endsWith(`.${rpId}`));
  if (!suffix) throw badRequest("invalid_rp_id", "relatedOriginRpId must be the origin's host or one of its parent domains", { field: "relatedOriginRpId" });
  return { origin: parsed.origin, rpId };
}
