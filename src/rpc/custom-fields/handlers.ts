import type { ConnectRouter } from "@connectrpc/connect";
import { CustomFieldsService, type CustomFieldValidationRulesInput } from "../../gen/sigil/custom_fields/v0/custom_fields_service_pb.js";
import type { CustomFieldDefinition } from "../../db/repositories/custom-fields.js";
import * as fields from "../../domain/custom-fields/service.js";
import type { Deps } from "../../domain/deps.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { toCustomField } from "./mappers.js";
import { environmentOf } from "../tenant-context.js";

/** The rules object -> stored columns; `unique` may be given on the field or in its rules (either sets it). */
function rulesOf(r: CustomFieldValidationRulesInput) {
  return {
    regex: orNull(r.regex),
    validOptions: r.validOptions.map((o) => ({ label: o.label })),
    checkboxText: orNull(r.checkboxText),
  };
}

export function registerCustomFields(router: ConnectRouter, deps: Deps) {
  router.service(CustomFieldsService, {
    async listCustomFields(req, ctx) {
      const access = environmentOf(ctx);
      const page = await fields.listCustomFields(deps, access, pageOf(req));
      return { customFields: page.fields.map(toCustomField), count: page.count };
    },
    async createCustomField(req, ctx) {
      const access = environmentOf(ctx);
      const rules = req.validationRules;
      const created = await fields.createCustomField(deps, access, {
        name: req.name,
        label: orNull(req.label),
        type: (req.type || "custom") as CustomFieldDefinition["type"],
        validationType: (req.validationType || req.fieldType || "text") as CustomFieldDefinition["validationType"],
        required: req.required,
        enabled: req.enabled ?? true,
        unique: req.unique || (rules?.unique ?? false),
        verify: req.verify,
        ...(rules ? rulesOf(rules) : { regex: null, validOptions: [], checkboxText: null }),
        position: req.position,
      });
      return { customField: toCustomField(created) };
    },
    async getCustomField(req, ctx) {
      const access = environmentOf(ctx);
      return { customField: toCustomField(await fields.getCustomField(deps, access, req.customFieldId)) };
    },
    async updateCustomField(req, ctx) {
      const access = environmentOf(ctx);
      const rules = req.validationRules;
      const patch: Partial<CustomFieldDefinition> = {
        name: req.name,
        label: req.label === undefined ? undefined : orNull(req.label),
        type: req.type as CustomFieldDefinition["type"] | undefined,
        validationType: (req.validationType ?? req.fieldType) as CustomFieldDefinition["validationType"] | undefined,
        required: req.required,
        enabled: req.enabled,
        unique: req.unique ?? (rules ? rules.unique : undefined),
        verify: req.verify,
        position: req.position,
        ...(rules ? rulesOf(rules) : {}),
      };
      const updated = await fields.updateCustomField(deps, access, req.customFieldId, patch);
      return { customField: toCustomField(updated) };
    },
    async deleteCustomField(req, ctx) {
      const access = environmentOf(ctx);
      await fields.deleteCustomField(deps, access, req.customFieldId);
      return {};
    },
  });
}
