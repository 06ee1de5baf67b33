import { randomBytes, randomUUID } from "node:crypto";
import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/custom-hostnames.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { normalizeHostname } from "./hostname.js";

export const MAX_CUSTOM_HOSTNAMES = 10;
/** Where the TXT ownership record lives under the hostname. */
export const VERIFICATION_LABEL = "_sigil-verification";

export interface DnsRecord {
  type: "TXT" | "CNAME";
  /** What publishing the record proves: ownership of the name (TXT) or that it routes here (CNAME). */
  verificationType: "ownership" | "alias";
  name: string;
  value: string;
}

export const CUSTOM_HOSTNAME_USAGES = ["cookies", "globalWallet"] as const;

/**
 * The records the hostname's owner publishes: a TXT record proving ownership and a CNAME routing the name to
 * this service's public host. Checking them needs DNS, which is out of reach here: hostnames stay pending
 * until a verifier outside this service marks them (see docs/decisions.md).
 */
export function verificationRecords(h: repo.CustomHostnameRecord, publicUrl: string): DnsRecord[] {
  return [
    { type: "TXT", verificationType: "ownership", name: `${VERIFICATION_LABEL}.${h.hostname}`, value: `sigil-verification=${h.verificationToken}` },
    { type: "CNAME", verificationType: "alias", name: h.hostname, value: new URL(publicUrl).hostname },
  ];
}

const snapshot = (h: repo.CustomHostnameRecord) => ({ id: h.id, hostname: h.hostname, usage: h.usage, status: h.status });

export function listCustomHostnames(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listCustomHostnames(deps.db, access.environmentId, page);
}

export async function createCustomHostname(
  deps: Deps,
  access: EnvironmentAccess,
  input: string,
  usage: repo.CustomHostnameRecord["usage"] = "cookies",
) {
  if (!CUSTOM_HOSTNAME_USAGES.includes(usage)) throw badRequest("invalid_usage", "usage must be cookies or globalWallet", { field: "usage" });
  const hostname = normalizeHostname(input, { minLabels: 2 });
  if (!hostname)
    throw badRequest("invalid_hostname", "hostname must be an RFC 1123 host name of at least two labels, without scheme, port or path", { field: "hostname" });
  const own = new URL(deps.config.publicUrl).hostname.toLowerCase();
  if (hostname === own || hostname.endsWith(`.${own}`))
    throw unprocessable("reserved_hostname", "the service's own host name cannot be a custom hostname");
  return audited(deps, access, async (t, record) => {
    await t.any("SELECT pg_advisory_xact_lock(hashtext('custom_hostnames:' || $1))", [access.environmentId]);
    if ((await repo.countCustomHostnames(t, access.environmentId)) >= MAX_CUSTOM_HOSTNAMES)
      throw unprocessable("custom_hostname_limit_reached", `an environment has at most ${MAX_CUSTOM_HOSTNAMES} custom hostnames`);
    let created: repo.CustomHostnameRecord;
    try {
      created = await t.tx((sp) => repo.insertCustomHostname(sp, access.environmentId, randomUUID(), { hostname, usage, verificationToken: randomBytes(16).toString("hex") }));
    } catch (err) {
      if ((err as { code?: string }).code === "23505") throw conflict("custom_hostname_already_exists", `${hostname} is already in use`);
      throw err;
    }
    await record({ action: "custom_hostname.created", resourceType: "custom_hostname", resourceId: created.id, after: snapshot(created) });
    return created;
  });
}

export async function deleteCustomHostname(deps: Deps, access: EnvironmentAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteCustomHostname(t, access.environmentId, id);
    if (!deleted) throw notFound("custom hostname");
    await record({ action: "custom_hostname.deleted", resourceType: "custom_hostname", resourceId: deleted.id, before: snapshot(deleted) });
  });
}
