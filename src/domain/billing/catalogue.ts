import { readFileSync } from "node:fs";

/** The plan and coupon catalogue is data (catalogue.json beside this file), read and checked once. */
export interface PlanDef {
  type: string;
  /**
   * The published client's planType for this plan when it names it otherwise (its enum has free, standard,
   * advanced and enterprise); requests accept either name.
   */
  clientType?: string;
  name: string;
  /** Order of plans: an upgrade moves to a higher rank. */
  rank: number;
  /** False: changed only by the operator (sales), not through the upgrade operation. */
  selfServe: boolean;
  monthlyPriceCents: number;
  /** 0 = unlimited. */
  monthlyActiveUsers: number;
}

export interface CouponDef {
  code: string;
  percentOff: number;
  durationMonths: number;
  /** Plans the coupon applies to; empty = every paid plan. */
  plans: string[];
  expiresAt: string | null;
}

export interface Catalogue {
  defaultPlan: string;
  currency: string;
  /** Version of this catalogue (the subscription's `version`). */
  version: string;
  plans: PlanDef[];
  coupons: CouponDef[];
}

export function parseCatalogue(raw: unknown): Catalogue {
  const c = raw as Catalogue;
  if (!c || !Array.isArray(c.plans) || !Array.isArray(c.coupons) || typeof c.defaultPlan !== "string" || typeof c.currency !== "string" || typeof c.version !== "string")
    throw new Error("billing catalogue: defaultPlan, currency, version, plans and coupons are required");
  const types = new Set<string>();
  for (const p of c.plans) {
    if (!/^[a-z][a-z0-9_-]{0,63}$/.test(p.type) || types.has(p.type)) throw new Error(`billing catalogue: bad or duplicate plan ${p.type}`);
    if (!Number.isInteger(p.rank) || !Number.isInteger(p.monthlyPriceCents) || !Number.isInteger(p.monthlyActiveUsers))
      throw new Error(`billing catalogue: plan ${p.type} needs integer rank, monthlyPriceCents, monthlyActiveUsers`);
    types.add(p.type);
  }
  if (!types.has(c.defaultPlan)) throw new Error(`billing catalogue: default plan ${c.defaultPlan} is not a plan`);
  const codes = new Set<string>();
  for (const k of c.coupons) {
    if (!/^[A-Z0-9_-]{1,64}$/.test(k.code) || codes.has(k.code)) throw new Error(`billing catalogue: bad or duplicate coupon ${k.code}`);
    if (!(k.percentOff > 0 && k.percentOff <= 100) || !Number.isInteger(k.durationMonths) || k.durationMonths < 0)
      throw new Error(`billing catalogue: coupon ${k.code} needs percentOff in (0, 100] and durationMonths >= 0`);
    if (k.plans.some((p) => !types.has(p))) throw new Error(`billing catalogue: coupon ${k.code} names an unknown plan`);
    if (k.expiresAt !== null && Number.isNaN(Date.parse(k.expiresAt))) throw new Error(`billing catalogue: coupon ${k.code} expiresAt`);
    codes.add(k.code);
  }
  return c;
}

export const catalogue: Catalogue = parseCatalogue(JSON.parse(readFileSync(new URL("./catalogue.json", import.meta.url), "utf8")));

export const findPlan = (type: string) => catalogue.plans.find((p) => p.type === type || p.clientType === type) ?? null;
/** The plan's name in the published client's planType enum. */
export const clientPlanType = (plan: PlanDef) => plan.clientType ?? plan.type;
/** The next self-serve plan above `plan` (what an upgrade without a named plan moves to), or null. */
export const nextSelfServePlan = (plan: PlanDef) =>
  catalogue.plans.filter((p) => p.selfServe && p.rank > plan.rank).sort((a, b) => a.rank - b.rank)[0] ?? null;
/** Coupon codes are case-insensitive (stored uppercase). */
export const findCoupon = (code: string) => catalogue.coupons.find((k) => k.code === code.trim().toUpperCase()) ?? null;

export function couponAppliesTo(coupon: CouponDef, plan: PlanDef): boolean {
  if (plan.monthlyPriceCents === 0) return false;
  return coupon.plans.length === 0 || coupon.plans.includes(plan.type);
}
