import type { ConnectRouter } from "@connectrpc/connect";
import { BillingService } from "../../gen/sigil/billing/v0/billing_service_pb.js";
import { SsoProvidersService } from "../../gen/sigil/sso/v0/sso_providers_service_pb.js";
import type { SsoProviderRecord } from "../../db/repositories/sso-providers.js";
import * as billing from "../../domain/billing/service.js";
import { catalogue } from "../../domain/billing/catalogue.js";
import type { Deps } from "../../domain/deps.js";
import * as sso from "../../domain/sso/service.js";
import { organizationAccess } from "../../domain/tenancy/access.js";
import { orNull, str, ts } from "../mappers.js";

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
});

type SsoRequest = {
  protocol: string;
  issuer: string;
  entryPoint: string;
  clientId: string;
  clientSecret: string;
  certificate: string;
  enforce: boolean;
  domains: string[];
};

const ssoInput = (req: SsoRequest): sso.SsoProviderInput => ({
  protocol: req.protocol as "oidc" | "saml",
  issuer: orNull(req.issuer),
  entryPoint: orNull(req.entryPoint),
  clientId: orNull(req.clientId),
  clientSecret: orNull(req.clientSecret),
  certificate: orNull(req.certificate),
  enforce: req.enforce,
  domains: req.domains,
});

export function registerOrganizationExtras(router: ConnectRouter, deps: Deps) {
  const toSso = (p: SsoProviderRecord) => ({
    id: p.id,
    organizationId: p.organizationId,
    protocol: p.protocol,
    issuer: str(p.issuer),
    entryPoint: str(p.entryPoint),
    clientId: str(p.clientId),
    // The client secret is write-only: sealed at rest and never returned.
    clientSecretSet: p.clientSecretSealed !== null,
    certificate: str(p.certificate),
    enforce: p.enforce,
    domains: p.domains,
    redirectUrl: sso.ssoRedirectUrl(deps.config.publicUrl, p.id),
    createdAt: ts(p.createdAt),
    updatedAt: ts(p.updatedAt),
  });

  router.service(BillingService, {
    async getSubscription(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { subscription: toSubscription(await billing.getSubscription(deps, access)) };
    },
    async applyCoupon(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { subscription: toSubscription(await billing.applyCoupon(deps, access, req.code)) };
    },
    async upgradeSubscription(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { subscription: toSubscription(await billing.upgradeSubscription(deps, access, req.planType)) };
    },
  });

  router.service(SsoProvidersService, {
    async getSsoProvider(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { ssoProvider: toSso(await sso.getSsoProvider(deps, access)) };
    },
    async createSsoProvider(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { ssoProvider: toSso(await sso.createSsoProvider(deps, access, ssoInput(req))) };
    },
    async updateSsoProvider(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { ssoProvider: toSso(await sso.updateSsoProvider(deps, access, req.ssoProviderId, ssoInput(req))) };
    },
    async deleteSsoProvider(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      await sso.deleteSsoProvider(deps, access, req.ssoProviderId);
      return {};
    },
  });
}
