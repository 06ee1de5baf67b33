import { randomUUID } from "node:crypto";
import { notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/allowlists.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { entryIdentifier, type EntryIdentifierInput } from "./entries.js";
import { checkName, checkOutcome } from "./outcome.js";

/**
 * Allowlists decide who may sign in to an environment (siteAccess, block) or who gets a scope. They are
 * created disabled: an enabled siteAccess list with no entries yet would lock every user out.
 */

export async function createAllowlist(deps: Deps, access: EnvironmentAccess, input: { name: string; outcome: string; scope: string | null }) {
  checkName(input.name);
  checkOutcome(input.outcome, input.scope);
  return audited(deps, access, async (t, record) => {
    const created = await repo.insertAllowlist(t, access.environmentId, { id: randomUUID(), ...input });
    await record({ action: "allowlist.created", resourceType: "allowlist", resourceId: created.id, after: created });
    return created;
  });
}

export function listAllowlists(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listAllowlists(deps.db, access.environmentId, page);
}

export async function getAllowlist(deps: Deps, access: EnvironmentAccess, id: string) {
  const a = await repo.findAllowlist(deps.db, access.environmentId, id);
  if (!a) throw notFound("allowlist");
  return a;
}

export async function updateAllowlist(
  deps: Deps,
  access: EnvironmentAccess,
  id: string,
  input: { name?: string; outcome?: string; scope?: string | null },
) {
  checkName(input.name);
  return audited(deps, access, async (t, record) => {
    const before = await repo.findAllowlist(t, access.environmentId, id, true);
    if (!before) throw notFound("allowlist");
    const next = {
      name: input.name ?? before.name,
      outcome: input.outcome ?? before.outcome,
      scope: input.scope !== undefined ? input.scope : before.scope,
    };
    checkOutcome(next.outcome, next.scope);
    const after = (await repo.updateAllowlist(t, access.environmentId, id, next))!;
    await record({ action: "allowlist.updated", resourceType: "allowlist", resourceId: id, before, after });
    return after;
  });
}

export async function setAllowlistEnabled(deps: Deps, access: EnvironmentAccess, id: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findAllowlist(t, access.environmentId, id, true);
    if (!before) throw notFound("allowlist");
    const after = (await repo.setAllowlistEnabled(t, access.environmentId, id, enabled))!;
    await record({
      action: enabled ? "allowlist.enabled" : "allowlist.disabled",
      resourceType: "allowlist",
      resourceId: id,
      before: { enabledAt: before.enabledAt },
      after: { enabledAt: after.enabledAt },
    });
    return after;
  });
}

export async function deleteAllowlist(deps: Deps, access: EnvironmentAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteAllowlist(t, access.environmentId, id);
    if (!deleted) throw notFound("allowlist");
    await record({ action: "allowlist.deleted", resourceType: "allowlist", resourceId: id, before: deleted });
  });
}

export async function createEntry(
  deps: Deps,
  access: EnvironmentAccess,
  allowlistId: string,
  input: EntryIdentifierInput & { alias: string | null },
) {
  // The allowlist is looked up first, so that another tenant's id answers 404 whatever the body.
  await getAllowlist(deps, access, allowlistId);
  const identifier = entryIdentifier(input);
  const duplicate = () => unprocessable("entry_already_exists", `this ${identifier.type} is already on the allowlist`);
  try {
    return await audited(deps, access, async (t, record) => {
      const list = await repo.findAllowlist(t, access.environmentId, allowlistId, true);
      if (!list) throw notFound("allowlist");
      const entry = await repo.insertAllowlistEntry(t, access.environmentId, {
        id: randomUUID(),
        allowlistId,
        ...identifier,
        alias: input.alias,
      });
      await record({ action: "allowlist_entry.created", resourceType: "allowlist_entry", resourceId: entry.id, after: entry });
      return entry;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw duplicate();
    throw err;
  }
}

export async function listEntries(
  deps: Deps,
  access: EnvironmentAccess,
  allowlistId: string,
  opts: { offset: number; limit: number; query: string | null },
) {
  await getAllowlist(deps, access, allowlistId);
  return repo.listAllowlistEntries(deps.db, access.environmentId, allowlistId, opts);
}

export async function deleteEntry(deps: Deps, access: EnvironmentAccess, entryId: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteAllowlistEntry(t, access.environmentId, entryId);
    if (!deleted) throw notFound("allowlist entry");
    await record({ action: "allowlist_entry.deleted", resourceType: "allowlist_entry", resourceId: entryId, before: deleted });
  });
}
