import { randomUUID } from "node:crypto";
import { notFound } from "../../errors.js";
import * as repo from "../../db/repositories/gates.js";
import { checkName, checkOutcome } from "../allowlists/outcome.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { canonicalRules, type GateRuleInput } from "./rules.js";

/** Token gates: users satisfying every rule of a gate get its outcome. Created disabled. */

export async function createGate(
  deps: Deps,
  access: EnvironmentAccess,
  input: { name: string; outcome: string; scope: string | null; rules: GateRuleInput[] },
) {
  checkName(input.name);
  checkOutcome(input.outcome, input.scope);
  const fields = { name: input.name, outcome: input.outcome, scope: input.scope, rules: canonicalRules(input.rules) };
  return audited(deps, access, async (t, record) => {
    const created = await repo.insertGate(t, access.environmentId, randomUUID(), fields);
    await record({ action: "gate.created", resourceType: "gate", resourceId: created.id, after: created });
    return created;
  });
}

export function listGates(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listGates(deps.db, access.environmentId, page);
}

export async function getGate(deps: Deps, access: EnvironmentAccess, id: string) {
  const g = await repo.findGate(deps.db, access.environmentId, id);
  if (!g) throw notFound("gate");
  return g;
}

export async function updateGate(
  deps: Deps,
  access: EnvironmentAccess,
  id: string,
  input: { name?: string; outcome?: string; scope?: string | null; rules?: GateRuleInput[] },
) {
  checkName(input.name);
  const rules = input.rules ? canonicalRules(input.rules) : undefined;
  return audited(deps, access, async (t, record) => {
    const before = await repo.findGate(t, access.environmentId, id, true);
    if (!before) throw notFound("gate");
    const next = {
      name: input.name ?? before.name,
      outcome: input.outcome ?? before.outcome,
      scope: input.scope !== undefined ? input.scope : before.scope,
      rules: rules ?? before.rules,
    };
    checkOutcome(next.outcome, next.scope);
    const after = (await repo.updateGate(t, access.environmentId, id, next))!;
    await record({ action: "gate.updated", resourceType: "gate", resourceId: id, before, after });
    return after;
  });
}

export async function setGateEnabled(deps: Deps, access: EnvironmentAccess, id: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findGate(t, access.environmentId, id, true);
    if (!before) throw notFound("gate");
    const after = (await repo.setGateEnabled(t, access.environmentId, id, enabled))!;
    await record({
      action: enabled ? "gate.enabled" : "gate.disabled",
      resourceType: "gate",
      resourceId: id,
      before: { enabledAt: before.enabledAt },
      after: { enabledAt: after.enabledAt },
    });
    return after;
  });
}

export async function deleteGate(deps: Deps, access: EnvironmentAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteGate(t, access.environmentId, id);
    if (!deleted) throw notFound("gate");
    await record({ action: "gate.deleted", resourceType: "gate", resourceId: id, before: deleted });
  });
}
