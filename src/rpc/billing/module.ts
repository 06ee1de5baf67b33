import { BillingService, file_sigil_billing_v0_billing_service } from "../../gen/sigil/billing/v0/billing_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerBilling } from "./handlers.js";

/** Billing: an organization's subscription, its plan and coupons. */
export const billingModule: ApiModule = {
  services: [BillingService],
  files: [file_sigil_billing_v0_billing_service],
  register: (router, deps) => registerBilling(router, deps),
};
