import { SDKViewsApi, SdkViewSectionType, SdkViewType } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** SDKViewsApi: one scenario per operation, keyed `SDKViewsApi.<operation>`, run in this order. */
export const sDKViewsApi: Scenarios = {
  "SDKViewsApi.getSdkViews": ({ api, tenant }) => api(SDKViewsApi).getSdkViews({ environmentId: tenant.environmentId }),
  "SDKViewsApi.updateSdkView": ({ api, tenant }) =>
    api(SDKViewsApi).updateSdkView({
      environmentId: tenant.environmentId,
      sdkViewType: SdkViewType.Login,
      sdkViewUpdateRequest: {
        sections: [{ type: SdkViewSectionType.Email }, { type: SdkViewSectionType.Separator, label: "or" }, { type: SdkViewSectionType.Wallet, numOfItemsToDisplay: 3 }],
      },
    }),
  "SDKViewsApi.getSdkView": ({ api, tenant }) =>
    api(SDKViewsApi).getSdkView({ environmentId: tenant.environmentId, sdkViewType: SdkViewType.Login }),
};
