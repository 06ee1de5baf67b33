import { ChainEnum, VisitorFilterableFieldsEnum, VisitsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** VisitsApi: one scenario per operation, keyed `VisitsApi.<operation>`, run in this order. */
export const visitsApi: Scenarios = {
  // With the client's filter object (sent as filter[...] query parameters) and orderBy.
  "VisitsApi.getEnvironmentVisitors": ({ api, tenant }) =>
    api(VisitsApi).getEnvironmentVisitors({
      environmentId: tenant.environmentId,
      filter: { filterColumn: VisitorFilterableFieldsEnum.All, filterValue: "0x", chain: ChainEnum.Evm },
      orderBy: "createdAt:desc",
      limit: 10,
      offset: 0,
    }),
};
