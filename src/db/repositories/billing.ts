import type { Queryable } from "../db.js";

export interface SubscriptionRecord {
  organizationId: string;
  plan: string;
  couponCode: string | null;
  couponAppliedAt: Date | null;
  planChangedAt: Date;
  /** End of a trial the operator granted; null without one. */
  trialEndsAt: Date | null;
  /** When a cancellation takes (or took) effect; null while not cancelled. */
  canceledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const toSubscription = (r: Record<string, any>): SubscriptionRecord => ({
  organizationId: r.organization_id,
  plan: r.plan,
  couponCode: r.coupon_code,
  couponAppliedAt: r.coupon_applied_at,
  planChangedAt: r.plan_changed_at,
  trialEndsAt: r.trial_ends_at,
  canceledAt: r.canceled_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The stored subscription; null while the organization is on the default plan and never changed it. */
export async function findSubscription(q: Queryable, organizationId: string, opts: { forUpdate?: boolean } = {}) {
  const row = await q.oneOrNone(`SELECT * FROM billing_subscriptions WHERE organization_id = $1${opts.forUpdate ? " FOR UPDATE" : ""}`, [
    organizationId,
  ]);
  return row ? toSubscription(row) : null;
}

/** Creates the row on first change (with the default plan) and locks it, so concurrent changes serialize. */
export async function lockSubscription(q: Queryable, organizationId: string, defaultPlan: string): Promise<SubscriptionRecord> {
  await q.none(
    "INSERT INTO billing_subscriptions (organization_id, plan, plan_changed_at) VALUES ($1, $2, now()) ON CONFLICT (organization_id) DO NOTHING",
    [organizationId, defaultPlan],
  );
  return (await findSubscription(q, organizationId, { forUpdate: true }))!;
}

export async function setCoupon(q: Queryable, organizationId: string, code: string | null): Promise<SubscriptionRecord> {
  return toSubscription(
    await q.one(
      `UPDATE billing_subscriptions SET coupon_code = $2, coupon_applied_at = CASE WHEN $2::text IS NULL THEN NULL ELSE now() END,
         updated_at = now() WHERE organization_id = $1 RETURNING *`,
      [organizationId, code],
    ),
  );
}

export async function setPlan(q: Queryable, organizationId: string, plan: string, keepCoupon: boolean): Promise<SubscriptionRecord> {
  return toSubscription(
    await q.one(
      `UPDATE billing_subscriptions SET plan = $2, plan_changed_at = now(), updated_at = now(),
         coupon_code = CASE WHEN $3 THEN coupon_code ELSE NULL END,
         coupon_applied_at = CASE WHEN $3 THEN coupon_applied_at ELSE NULL END
       WHERE organization_id = $1 RETURNING *`,
      [organizationId, plan, keepCoupon],
    ),
  );
}
