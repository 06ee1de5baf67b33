import { CustomFieldsApi, CustomFieldType } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** CustomFieldsApi: one scenario per operation, keyed `CustomFieldsApi.<operation>`, run in this order. */
export const customFieldsApi: Scenarios = {
  "CustomFieldsApi.createCustomFieldForEnvironment": async ({ api, tenant, state }) => {
    const field = await api(CustomFieldsApi).createCustomFieldForEnvironment({
      environmentId: tenant.environmentId,
      customFieldRequest: { name: "favouriteColour", enabled: true, required: false, fieldType: CustomFieldType.Text, position: 1 },
    });
    state.customFieldId = field.id;
  },
  "CustomFieldsApi.getCustomFieldsForEnvironment": ({ api, tenant }) =>
    api(CustomFieldsApi).getCustomFieldsForEnvironment({ environmentId: tenant.environmentId }),
  "CustomFieldsApi.getCustomFieldById": ({ api, state }) => api(CustomFieldsApi).getCustomFieldById({ customFieldId: state.customFieldId }),
  "CustomFieldsApi.updateCustomFieldById": ({ api, state }) =>
    api(CustomFieldsApi).updateCustomFieldById({
      customFieldId: state.customFieldId,
      customFieldRequest: {
        name: "favouriteColour",
        enabled: true,
        required: false,
        fieldType: CustomFieldType.Select,
        validationRules: { validOptions: [{ label: "red" }, { label: "blue" }] },
        position: 2,
      },
    }),
  "CustomFieldsApi.deleteCustomFieldById": ({ api, state }) => api(CustomFieldsApi).deleteCustomFieldById({ customFieldId: state.customFieldId }),
};
