import { badRequest, notFound } from "../../errors.js";
import * as projects from "../../db/repositories/projects.js";
import { insertEnvironment, insertProject } from "../../db/repositories/tenancy.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { ensureSigningKey } from "../environments/keys.js";
import { defaultSettings } from "../environments/settings.js";
import type { OrganizationAccess, ProjectAccess } from "../tenancy/access.js";
import { dropCachedPrincipals } from "../tokens/cache.js";

type Page = { offset: number; limit: number };

const auditView = (p: projects.ProjectRecord) => ({ id: p.id, name: p.name, description: p.description, environments: p.environments });

export function listProjects(deps: Deps, organizationId: string, page: Page) {
  return projects.listProjects(deps.db, organizationId, page);
}

export async function getProject(deps: Deps, access: ProjectAccess) {
  const p = await projects.findProject(deps.db, access.organizationId, access.projectId);
  if (!p) throw notFound("project");
  return p;
}

/** Creates a project with its live and sandbox environments, each with its own settings and signing key. */
export async function createProject(deps: Deps, access: OrganizationAccess, input: { name: string; description: string | null }) {
  return audited(deps, access, async (t, record) => {
    const { id } = await insertProject(t, access.organizationId, input.name, input.description);
    for (const name of ["live", "sandbox"] as const) {
      const settings = defaultSettings(input.name);
      const env = await insertEnvironment(t, access.organizationId, id, name, settings);
      await ensureSigningKey(deps, t, env.id);
      await record({ action: "environment.created", resourceType: "environment", resourceId: env.id, after: { id: env.id, projectId: id, name, settings }, environmentId: env.id });
    }
    const created = (await projects.findProject(t, access.organizationId, id))!;
    await record({ action: "project.created", resourceType: "project", resourceId: id, after: auditView(created), environmentId: null });
    return created;
  }, { lockOrganization: "key share" });
}

export async function updateProject(deps: Deps, access: ProjectAccess, patch: { name?: string; description?: string | null }) {
  if (patch.name !== undefined && patch.name.trim() === "") throw badRequest("invalid_name", "name must not be empty", { field: "name" });
  return audited(deps, access, async (t, record) => {
    const before = await projects.findProject(t, access.organizationId, access.projectId);
    if (!before) throw notFound("project");
    // Read before the update's row lock: a deletion that committed meanwhile leaves nothing to update.
    if (!(await projects.updateProject(t, access.organizationId, access.projectId, patch))) throw notFound("project");
    const after = (await projects.findProject(t, access.organizationId, access.projectId))!;
    await record({ action: "project.updated", resourceType: "project", resourceId: after.id, before: auditView(before), after: auditView(after), environmentId: null });
    return after;
  }, { lockOrganization: "key share" });
}

/** Deletes the project, its environments and everything in them; their tokens stop working at once. */
export async function deleteProject(deps: Deps, access: ProjectAccess): Promise<void> {
  const hashes = await audited(deps, access, async (t, record) => {
    const before = await projects.findProject(t, access.organizationId, access.projectId);
    if (!before) throw notFound("project");
    const h = await projects.projectTokenHashes(t, access.organizationId, access.projectId);
    // Of two deletions at once, the second finds the row gone once the first commits: 404, as after it.
    if (!(await projects.deleteProject(t, access.organizationId, access.projectId))) throw notFound("project");
    await record({ action: "project.deleted", resourceType: "project", resourceId: before.id, before: auditView(before), environmentId: null });
    return h;
  }, { lockOrganization: "key share" });
  await dropCachedPrincipals(deps, hashes);
}
