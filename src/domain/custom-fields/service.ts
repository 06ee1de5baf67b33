import { badRequest, conflict, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/custom-fields.js";
import type { CustomFieldDefinition, CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { checkRegex, sourceOf, STANDARD_FIELDS } from "./rules.js";

export type CustomFieldInput = CustomFieldDefinition;

/** The stored definition, as recorded in the audit trail. */
const snapshot = (f: CustomFieldRecord) => {
  const { environmentId: _e, createdAt: _c, updatedAt: _u, ...rest } = f;
  return rest;
};

function checkDefinition(f: CustomFieldDefinition): void {
  if (f.type === "standard" && !(f.name in STANDARD_FIELDS))
    throw badRequest("invalid_standard_field", `a standard field names a profile field: one of ${Object.keys(STANDARD_FIELDS).join(", ")}`, {
      field: "name",
    });
  if (f.regex) checkRegex(f.regex);
  if (f.validationType === "select" && f.validOptions.length === 0)
    throw badRequest("valid_options_required", "a select field needs validationRules.validOptions", { field: "validationRules.validOptions" });
}

function translate(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === "23505" && e.constraint === "custom_fields_environment_id_name_key")
    throw conflict("custom_field_already_exists", "a custom field with this name already exists in this environment");
  if (e.code === "23505" && e.constraint === "custom_field_values_unique_key")
    throw unprocessable("custom_field_not_unique", "users of this environment already share values of this field; it cannot be unique");
  throw err;
}

/**
 * Rebuilds the unique-value rows of a field: cleared, then filled from the live users when the field is
 * enabled and unique (422 when existing users share a value, and nothing changes).
 */
async function syncUniqueValues(t: Parameters<Parameters<typeof audited>[2]>[0], environmentId: string, f: CustomFieldRecord) {
  await repo.clearFieldValues(t, environmentId, f.id);
  if (f.enabled && f.unique) await repo.backfillFieldValues(t, environmentId, f.id, sourceOf(f));
}

export async function createCustomField(deps: Deps, access: EnvironmentAccess, input: CustomFieldInput): Promise<CustomFieldRecord> {
  checkDefinition(input);
  const env = access.environmentId;
  return audited(deps, access, async (t, record) => {
    await repo.lockDefinitions(t, env, "exclusive");
    if (await repo.customFieldNameTaken(t, env, input.name))
      throw conflict("custom_field_already_exists", "a custom field with this name already exists in this environment");
    const f = await repo.insertCustomField(t, env, input);
    await syncUniqueValues(t, env, f);
    await record({ action: "custom_field.created", resourceType: "custom_field", resourceId: f.id, after: snapshot(f) });
    return f;
  }).catch(translate);
}

export async function updateCustomField(
  deps: Deps,
  access: EnvironmentAccess,
  id: string,
  patch: Partial<CustomFieldDefinition>,
): Promise<CustomFieldRecord> {
  const env = access.environmentId;
  return audited(deps, access, async (t, record) => {
    await repo.lockDefinitions(t, env, "exclusive");
    const before = await repo.findCustomField(t, env, id, { forUpdate: true });
    if (!before) throw notFound("custom field");
    checkDefinition({ ...before, ...patch });
    if (patch.name !== undefined && (await repo.customFieldNameTaken(t, env, patch.name, id)))
      throw conflict("custom_field_already_exists", "a custom field with this name already exists in this environment");
    const after = (await repo.updateCustomField(t, env, id, patch))!;
    await syncUniqueValues(t, env, after);
    await record({ action: "custom_field.updated", resourceType: "custom_field", resourceId: id, before: snapshot(before), after: snapshot(after) });
    return after;
  }).catch(translate);
}

export async function deleteCustomField(deps: Deps, access: EnvironmentAccess, id: string): Promise<void> {
  await audited(deps, access, async (t, record) => {
    const gone = await repo.deleteCustomField(t, access.environmentId, id);
    if (!gone) throw notFound("custom field");
    await record({ action: "custom_field.deleted", resourceType: "custom_field", resourceId: id, before: snapshot(gone) });
  });
}

export async function getCustomField(deps: Deps, access: EnvironmentAccess, id: string): Promise<CustomFieldRecord> {
  const f = await repo.findCustomField(deps.db, access.environmentId, id);
  if (!f) throw notFound("custom field");
  return f;
}

export function listCustomFields(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listCustomFields(deps.db, access.environmentId, page);
}
