import { randomUUID } from "node:crypto";
import { badRequest, conflict, notFound } from "../../errors.js";
import * as repo from "../../db/repositories/custom-networks.js";
import { audited } from "../audit/audit.js";
import { isLoopbackHost } from "../hosts.js";
import type { Deps } from "../deps.js";
import type { OrganizationAccess } from "../tenancy/access.js";

export type CustomNetworkInput = repo.CustomNetworkFields;

/** https, or http only for a loopback host. */
export function isAcceptableNetworkUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

/** The rules the proto cannot express; 400 with the field at fault, before anything is written. */
export function validateNetwork(n: CustomNetworkInput): CustomNetworkInput {
  if (!Number.isSafeInteger(n.chainId) || n.chainId <= 0)
    throw badRequest("invalid_chain_id", "chainId must be a positive integer", { field: "chainId" });
  n.rpcUrls.forEach((u, i) => {
    if (!isAcceptableNetworkUrl(u))
      throw badRequest("invalid_rpc_url", "rpcUrls must be https URLs (http only for localhost or 127.0.0.1)", { field: `rpcUrls[${i}]` });
  });
  n.blockExplorerUrls.forEach((u, i) => {
    if (!isAcceptableNetworkUrl(u))
      throw badRequest("invalid_block_explorer_url", "blockExplorerUrls must be https URLs (http only for localhost)", {
        field: `blockExplorerUrls[${i}]`,
      });
  });
  if (n.nativeCurrency.iconUrl && !isAcceptableNetworkUrl(n.nativeCurrency.iconUrl))
    throw badRequest("invalid_icon_url", "nativeCurrencyIconUrl must be an https URL", { field: "nativeCurrencyIconUrl" });
  const d = n.nativeCurrency.decimals;
  if (!Number.isInteger(d) || d < 0 || d > 36)
    throw badRequest("invalid_decimals", "nativeCurrency.decimals must be between 0 and 36", { field: "nativeCurrency.decimals" });
  return { ...n, rpcUrls: [...new Set(n.rpcUrls)], blockExplorerUrls: [...new Set(n.blockExplorerUrls)] };
}

const snapshot = (n: repo.CustomNetworkRecord) => {
  const { organizationId: _o, createdAt: _c, updatedAt: _u, ...rest } = n;
  return rest;
};

export function listNetworks(deps: Pick<Deps, "db">, access: OrganizationAccess, page: { offset: number; limit: number }) {
  return repo.listCustomNetworks(deps.db, access.organizationId, page);
}

export async function getNetwork(deps: Pick<Deps, "db">, access: OrganizationAccess, networkId: string) {
  const n = await repo.findCustomNetwork(deps.db, access.organizationId, networkId);
  if (!n) throw notFound("custom network");
  return n;
}

export async function createNetwork(deps: Pick<Deps, "db">, access: OrganizationAccess, input: CustomNetworkInput) {
  const fields = validateNetwork(input);
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertCustomNetwork(t, access.organizationId, randomUUID(), fields);
      await record({ action: "custom_network.created", resourceType: "custom_network", resourceId: created.id, after: snapshot(created) });
      return created;
    });
  } catch (err) {
    throw translateUnique(err, fields.chainId);
  }
}

/** Replaces every field of the network. */
export async function updateNetwork(deps: Pick<Deps, "db">, access: OrganizationAccess, networkId: string, input: CustomNetworkInput) {
  const fields = validateNetwork(input);
  try {
    return await audited(deps, access, async (t, record) => {
      const before = await repo.findCustomNetwork(t, access.organizationId, networkId, true);
      if (!before) throw notFound("custom network");
      const after = (await repo.updateCustomNetwork(t, access.organizationId, networkId, fields))!;
      await record({ action: "custom_network.updated", resourceType: "custom_network", resourceId: after.id, before: snapshot(before), after: snapshot(after) });
      return after;
    });
  } catch (err) {
    throw translateUnique(err, fields.chainId);
  }
}

export async function deleteNetwork(deps: Pick<Deps, "db">, access: OrganizationAccess, networkId: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteCustomNetwork(t, access.organizationId, networkId);
    if (!deleted) throw notFound("custom network");
    await record({ action: "custom_network.deleted", resourceType: "custom_network", resourceId: deleted.id, before: snapshot(deleted) });
  });
}

function translateUnique(err: unknown, chainId: number): unknown {
  if ((err as { code?: string }).code === "23505")
    return conflict("custom_network_already_exists", `this organization already has a custom network with chainId ${chainId}`);
  return err;
}
