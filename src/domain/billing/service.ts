import { badRequest, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/billing.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { OrganizationAccess } from "../tenancy/access.js";
import { catalogue, couponAppliesTo, findCoupon, findPlan, nextSelfServePlan, type CouponDef, type PlanDef } from "./catalogue.js";

/**
 * An organization's subscription: a plan of the catalogue and an optional coupon. There is no payment
 * processor: Sigil records the choice (and audits it) and charges nothing; see docs/decisions.md.
 */
export interface Subscription {
  organizationId: string;
  plan: PlanDef;
  status: SubscriptionStatus;
  /** End of the trial while status is "trialing"; null otherwise. */
  trialEndsAt: Date | null;
  coupon: (CouponDef & { appliedAt: Date }) | null;
  planChangedAt: Date | null;
}

export type SubscriptionStatus = "active" | "trialing" | "canceled";

/**
 * The status the stored row implies at `now`: a cancellation in effect wins, then a trial not yet over;
 * otherwise active (a trial that ended leaves the plan active: there is no processor to charge or lapse).
 * No row (the default plan, never changed) is active.
 */
export function subscriptionStatus(s: Pick<repo.SubscriptionRecord, "trialEndsAt" | "canceledAt"> | null, now: Date): SubscriptionStatus {
  if (s?.canceledAt && s.canceledAt <= now) return "canceled";
  if (s?.trialEndsAt && s.trialEndsAt > now) return "trialing";
  return "active";
}

function present(organizationId: string, s: repo.SubscriptionRecord | null): Subscription {
  const plan = findPlan(s?.plan ?? catalogue.defaultPlan);
  // A plan removed from the catalogue reads as the default rather than failing every read.
  const effective = plan ?? findPlan(catalogue.defaultPlan)!;
  const coupon = s?.couponCode ? findCoupon(s.couponCode) : null;
  const status = subscriptionStatus(s, new Date());
  return {
    organizationId,
    plan: effective,
    status,
    trialEndsAt: status === "trialing" ? s!.trialEndsAt : null,
    coupon: coupon && s?.couponAppliedAt ? { ...coupon, appliedAt: s.couponAppliedAt } : null,
    planChangedAt: s?.planChangedAt ?? null,
  };
}

const snapshot = (s: repo.SubscriptionRecord) => ({ plan: s.plan, couponCode: s.couponCode });

export async function getSubscription(deps: Deps, access: OrganizationAccess) {
  return present(access.organizationId, await repo.findSubscription(deps.db, access.organizationId));
}

export async function applyCoupon(deps: Deps, access: OrganizationAccess, code: string) {
  const coupon = findCoupon(code);
  if (!coupon) throw unprocessable("invalid_coupon", "unknown coupon code");
  if (coupon.expiresAt !== null && Date.parse(coupon.expiresAt) <= Date.now()) throw unprocessable("coupon_expired", "this coupon has expired");
  return audited(deps, access, async (t, record) => {
    const current = await repo.lockSubscription(t, access.organizationId, catalogue.defaultPlan);
    const plan = findPlan(current.plan) ?? findPlan(catalogue.defaultPlan)!;
    if (!couponAppliesTo(coupon, plan))
      throw unprocessable("coupon_not_applicable", `coupon ${coupon.code} does not apply to the ${plan.name} plan`);
    if (current.couponCode === coupon.code) throw unprocessable("coupon_already_applied", `coupon ${coupon.code} is already applied`);
    const saved = await repo.setCoupon(t, access.organizationId, coupon.code);
    await record({
      action: "billing_subscription.coupon_applied",
      resourceType: "billing_subscription",
      resourceId: access.organizationId,
      before: snapshot(current),
      after: snapshot(saved),
      environmentId: null,
    });
    return present(access.organizationId, saved);
  });
}

/**
 * Moves to a higher-ranked, self-serve plan. Unknown plans are a bad request; the current plan, a lower one
 * (downgrades take effect at a renewal, which needs billing periods a processor would own) and plans sold
 * by contract answer 422. Without a plan the next self-serve plan up is chosen. A coupon that does not apply to the new plan is dropped.
 */
export async function upgradeSubscription(deps: Deps, access: OrganizationAccess, planType: string) {
  const named = planType ? findPlan(planType) : null;
  if (planType && !named) throw badRequest("invalid_plan", `unknown plan ${planType}; plans: ${catalogue.plans.map((p) => p.type).join(", ")}`, { field: "planType" });
  return audited(deps, access, async (t, record) => {
    const current = await repo.lockSubscription(t, access.organizationId, catalogue.defaultPlan);
    const from = findPlan(current.plan) ?? findPlan(catalogue.defaultPlan)!;
    // No plan named (the published client sends no body): the next self-serve plan up.
    const target = named ?? nextSelfServePlan(from);
    if (!target) throw unprocessable("no_higher_plan", `there is no self-serve plan above ${from.name}`);
    if (target.type === from.type) throw unprocessable("plan_already_active", `the organization is already on the ${from.name} plan`);
    if (target.rank < from.rank) throw unprocessable("downgrade_not_supported", `${target.name} is below the current ${from.name} plan`);
    if (!target.selfServe) throw unprocessable("plan_not_self_serve", `the ${target.name} plan is arranged with the operator, not self-serve`);
    const coupon = current.couponCode ? findCoupon(current.couponCode) : null;
    const saved = await repo.setPlan(t, access.organizationId, target.type, coupon !== null && couponAppliesTo(coupon, target));
    await record({
      action: "billing_subscription.upgraded",
      resourceType: "billing_subscription",
      resourceId: access.organizationId,
      before: snapshot(current),
      after: snapshot(saved),
      environmentId: null,
    });
    return present(access.organizationId, saved);
  });
}
