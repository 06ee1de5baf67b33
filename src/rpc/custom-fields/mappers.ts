import type { CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import { str, ts } from "../mappers.js";

/** The spec's custom field (also the items of a User's missingFields). */
export function toCustomField(f: CustomFieldRecord) {
  return {
    id: f.id,
    name: f.name,
    required: f.required,
    enabled: f.enabled,
    unique: f.unique,
    verify: f.verify,
    type: f.type,
    validationRules: {
      unique: f.unique,
      regex: str(f.regex),
      validOptions: f.validOptions.map((o) => ({ label: o.label })),
      checkboxText: str(f.checkboxText),
    },
    validationType: f.validationType,
    key: f.name,
    fieldType: f.validationType,
    label: str(f.label),
    position: f.position,
    createdAt: ts(f.createdAt),
    updatedAt: ts(f.updatedAt),
  };
}
