import type { ConnectRouter } from "@connectrpc/connect";
import { BillingService } from "../../gen/sigil/billing/v0/billing_service_pb.js";
import * as billing from "../../domain/billing/service.js";
import { catalogue, clientPlanType } from "../../domain/billing/catalogue.js";
import type { Deps } from "../../domain/deps.js";
import { badRequest } from "../../errors.js";
import { ts } from "../mappers.js";
import { organizationOf } from "../tenant-context.js";

const toSubscription = (s: billing.Subscription) => ({
  organizationId: s.organizationId,
  plan: {
    type: s.plan.type,
    name: s.plan.name,
    monthlyPriceCents: s.plan.monthlyPriceCents,
    currency: catalogue.currency,
    monthlyActiveUsers: s.plan.monthlyActiveUsers,
  },
  status: s.status,
  coupon: s.coupon
    ? { code: s.coupon.code, percentOff: s.coupon.percentOff, durationMonths: s.coupon.durationMonths, appliedAt: ts(s.coupon.appliedAt) }
    : undefined,
  planChangedAt: ts(s.planChangedAt),
  planType: clientPlanType(s.plan),
  hasPaymentMethod: false,
  inTrial: s.status === "trialing",
  scope: ["environment"],
  version: catalogue.version,
});

/** The coupon code under Sigil's name (`code`) or the published client's (`coupon`). */
function couponCode(req: { code: string; coupon: string }): string {
  const code = req.code || req.coupon;
  if (!code) throw badRequest("validation_error", "invalid request: coupon is required", { errors: [{ field: "coupon", message: "is required" }] });
  return code;
}
export function registerBilling(router: ConnectRouter, deps: Deps) {
  router.service(BillingService, {
    async getSubscription(req, ctx) {
      const access = organizationOf(ctx);
      return { subscription: toSubscription(await billing.getSubscription(deps, access)) };
    },
    async applyCoupon(req, ctx) {
      const access = organizationOf(ctx);
      return { subscription: toSubscription(await billing.applyCoupon(deps, access, couponCode(req))) };
    },
    async upgradeSubscription(req, ctx) {
      const access = organizationOf(ctx);
      return { subscription: toSubscription(await billing.upgradeSubscription(deps, access, req.planType)) };
    },
  });
}
