import type { ProjectRecord } from "../../db/repositories/projects.js";
import { str, ts } from "../mappers.js";

export function toProject(p: ProjectRecord) {
  return {
    id: p.id,
    organizationId: p.organizationId,
    name: p.name,
    description: str(p.description),
    environments: p.environments.map((e) => ({ id: e.id, name: e.name })),
    createdAt: ts(p.createdAt),
    updatedAt: ts(p.updatedAt),
  };
}
